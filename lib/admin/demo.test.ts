import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrgByToken, revokeOrgToken } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { freshPglite } from '@/lib/db/test-engines';
import { listAliases } from '@/lib/aliases/aliases';
import { ensureDemo, isEmptyInstallation } from './demo';

let d: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ database: d, cleanup } = await freshPglite());
});
afterAll(() => cleanup());

describe('ensureDemo', () => {
  it('sets up once and returns the same credentials afterwards', async () => {
    expect(await isEmptyInstallation(d.db)).toBe(true);
    const first = await ensureDemo(d.db);
    expect(first.created).toBe(true);
    expect(await isEmptyInstallation(d.db)).toBe(false);
    const second = await ensureDemo(d.db);
    expect(second).toEqual({ created: false, credentials: first.credentials });
    expect(first.credentials.partner_node_ids).toHaveLength(40);
  });

  it('gives the demo organization one alias of each kind of access, once', async () => {
    const { credentials } = await ensureDemo(d.db);
    const org = (await findOrgByToken(d.db, credentials.org_token))!;
    const { entries } = await listAliases(d.db, { orgId: org.id });
    expect(entries).toHaveLength(3);
    const kind = (a: (typeof entries)[number]) => (a.jwtSecret ? 'jwt' : a.passcode ? 'passcode' : 'public');
    expect(entries.map(kind).sort()).toEqual(['jwt', 'passcode', 'public']);
    expect(entries.every((a) => a.expiredAt > Date.now() / 1000 + 80 * 86_400)).toBe(true);
    expect(entries.find((a) => a.jwtSecret)?.streamKey).toMatch(/^sk_/);
    await ensureDemo(d.db);
    expect((await listAliases(d.db, { orgId: org.id })).entries).toHaveLength(3);
  });

  it('replaces a revoked demo token with a working one', async () => {
    const { credentials } = await ensureDemo(d.db);
    await revokeOrgToken(d.db, { token: credentials.org_token });
    const again = await ensureDemo(d.db);
    expect(again.credentials.org_token).not.toBe(credentials.org_token);
    expect(await findOrgByToken(d.db, again.credentials.org_token)).toMatchObject({ name: 'Demo organization' });
    expect(again.credentials.api_key).toBe(credentials.api_key);
  });

  it('is safe to run concurrently', async () => {
    const results = await Promise.all([ensureDemo(d.db), ensureDemo(d.db), ensureDemo(d.db)]);
    expect(new Set(results.map((r) => r.credentials.org_token)).size).toBe(1);
  });
});
