import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminToken, createOrganization, createOrgToken, revokeAdminToken, revokeOrgToken } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { setSuspended } from './instance';
import {
  ABSOLUTE_MS,
  csrfMatches,
  csrfToken,
  endSession,
  endSessionsLike,
  findSession,
  findSignInCredential,
  IDLE_MS,
  purgeEndedSessions,
  sessionCookie,
  sessionSecret,
  startSession,
} from './sessions';

describe.each(engines)('console sessions on %s', (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ database: d, cleanup } = await open()));
  afterAll(() => cleanup());

  async function orgSession(now = Date.now()) {
    const org = await createOrganization(d.db, { name: 'Acme' });
    const { token } = await createOrgToken(d.db, { orgId: org.id });
    const who = (await findSignInCredential(d.db, token))!;
    return { org, token, ...(await startSession(d.db, who, '127.0.0.1', now)) };
  }

  it('stores only the SHA-256 of the secret, and the secret opens the session', async () => {
    const { secret, session, org } = await orgSession();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await d.db.execute(sql`select * from console_sessions`);
    expect(JSON.stringify(rows.rows)).not.toContain(secret);
    const found = await findSession(d.db, secret);
    expect(found).toMatchObject({ id: session.id, role: 'org', org: { id: org.id, name: 'Acme' }, suspended: false });
    expect(found!.csrfToken).toBe(session.csrfToken);
    expect(await findSession(d.db, secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A'))).toBeNull();
    expect(await findSession(d.db, '')).toBeNull();
  });

  it('expires after 12 idle hours, slides with use, and ends 7 days after it began whatever the use', async () => {
    const t0 = Date.now();
    const { secret } = await orgSession(t0);
    // Used 11 h later: alive, and the idle clock restarts.
    expect(await findSession(d.db, secret, t0 + 11 * 3_600_000)).not.toBeNull();
    expect(await findSession(d.db, secret, t0 + 22 * 3_600_000)).not.toBeNull();
    // 12 h and a second after the last use: gone.
    expect(await findSession(d.db, secret, t0 + 22 * 3_600_000 + IDLE_MS + 1000)).toBeNull();

    const busy = await orgSession(t0);
    for (let t = t0; t < t0 + ABSOLUTE_MS; t += 10 * 3_600_000) expect(await findSession(d.db, busy.secret, t)).not.toBeNull();
    expect(await findSession(d.db, busy.secret, t0 + ABSOLUTE_MS + 1000)).toBeNull();
  });

  it('ends when signed out, signed out everywhere, or when its token is revoked', async () => {
    const a = await orgSession();
    await endSession(d.db, a.session.id);
    expect(await findSession(d.db, a.secret)).toBeNull();

    const b = await orgSession();
    const who = (await findSignInCredential(d.db, b.token))!;
    const other = await startSession(d.db, who, null);
    expect(await endSessionsLike(d.db, b.session)).toBe(2);
    expect(await findSession(d.db, b.secret)).toBeNull();
    expect(await findSession(d.db, other.secret)).toBeNull();

    const c = await orgSession();
    await revokeOrgToken(d.db, { token: c.token });
    expect(await findSession(d.db, c.secret)).toBeNull();
  });

  it('ended sessions are purged a day after they ended; live ones stay', async () => {
    const t0 = Date.now();
    const live = await orgSession(t0);
    const out = await orgSession(t0);
    await endSession(d.db, out.session.id);
    const idle = await orgSession(t0 - IDLE_MS - 2 * 86_400_000);
    expect(await purgeEndedSessions(d.db, t0)).toBeGreaterThanOrEqual(1); // the long-idle one
    expect(await findSession(d.db, live.secret, t0)).not.toBeNull();
    const ids = async () => (await d.db.execute<{ id: string }>(sql`select id from console_sessions`)).rows.map((r) => r.id);
    expect(await ids()).not.toContain(idle.session.id);
    expect(await ids()).toContain(out.session.id); // ended less than a day ago
    await purgeEndedSessions(d.db, t0 + 2 * 86_400_000);
    expect(await ids()).not.toContain(out.session.id);
  });

  it('admin sessions are made with admin tokens and end with them; suspension is reported', async () => {
    const { token, id } = await createAdminToken(d.db);
    expect(token).toMatch(/^adm_/);
    const who = (await findSignInCredential(d.db, token))!;
    expect(who).toEqual({ role: 'admin', tokenId: id });
    const { secret } = await startSession(d.db, who, null);
    expect(await findSession(d.db, secret)).toMatchObject({ role: 'admin', org: null });
    await revokeAdminToken(d.db, { id });
    expect(await findSession(d.db, secret)).toBeNull();
    expect(await findSignInCredential(d.db, token)).toBeNull();

    const s = await orgSession();
    await setSuspended(d.db, s.org.id, true);
    expect(await findSession(d.db, s.secret)).toMatchObject({ suspended: true });
    expect((await findSignInCredential(d.db, s.token)) as unknown).toMatchObject({ org: { suspended: true } });
  });
});

describe('session cookie and CSRF token', () => {
  it('sets HttpOnly, SameSite=Lax, Path=/, Secure only over HTTPS; removal expires it', () => {
    expect(sessionCookie('abc', { secure: false })).toBe('triad_session=abc; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax');
    expect(sessionCookie('abc', { secure: true })).toBe('triad_session=abc; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax; Secure');
    expect(sessionCookie(null, { secure: false })).toBe('triad_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
  });
  it('reads the cookie among others', () => {
    expect(sessionSecret('a=1; triad_session=xyz; b=2')).toBe('xyz');
    expect(sessionSecret('triad_sessionx=1')).toBeNull();
    expect(sessionSecret(null)).toBeNull();
  });
  it('binds the CSRF token to the session secret', () => {
    const secret = 'one-secret';
    expect(csrfMatches(secret, csrfToken(secret))).toBe(true);
    expect(csrfMatches(secret, csrfToken('other-secret'))).toBe(false);
    expect(csrfMatches(secret, null)).toBe(false);
    expect(csrfToken(secret)).not.toContain(secret);
  });
});
