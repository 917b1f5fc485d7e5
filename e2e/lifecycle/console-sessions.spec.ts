import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { freshDatabase } from '../../lib/db/fresh-database';
import { runAdmin } from '../support/fixtures';
import { freshDataDir, removeDataDirs, startServer } from '../support/server';

/*
 * Console sessions (design §11) outlive the process that made them, hold across instances on
 * PostgreSQL (a sign-out on one is honoured by the other at once), and get `Secure` behind an HTTPS
 * proxy that Triad is told to trust.
 */
test.afterAll(() => removeDataDirs());

async function signIn(url: string, token: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url, ...headers },
    body: JSON.stringify({ token }),
  });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  const secret = /triad_session=([^;]+)/.exec(setCookie)![1]!;
  return {
    setCookie,
    cookie: `triad_session=${secret}`,
    secret,
    csrf: ((await res.json()) as { data: { csrf_token: string } }).data.csrf_token,
  };
}

test('a session survives a restart of the embedded server; behind a trusted HTTPS proxy its cookie is Secure; no log holds it', async () => {
  test.setTimeout(120_000);
  const dataDir = freshDataDir();
  const env = { TRIAD_DEMO: '0', TRIAD_TRUST_PROXY: '1' };
  let server = await startServer(dataDir, env);
  const { org_token } = await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['org', 'create', '--name', 'Restart']);
  const s = await signIn(server.url, org_token!);
  expect(s.setCookie).not.toContain('Secure');
  const https = await signIn(server.url, org_token!, { 'x-forwarded-proto': 'https', origin: server.url.replace('http:', 'https:') });
  expect(https.setCookie).toMatch(/; Secure$/);
  expect((await fetch(`${server.url}/api/org/api-keys`, { headers: { cookie: s.cookie } })).status).toBe(200);
  const before = server.output();
  await server.stop();

  server = await startServer(dataDir, env);
  try {
    const keys = await fetch(`${server.url}/api/org/api-keys`, { headers: { cookie: s.cookie } });
    expect(keys.status).toBe(200);
    // A change with the cookie, from the new address's own origin.
    const made = await fetch(`${server.url}/api/org/api-keys`, {
      method: 'POST',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, origin: server.url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after restart' }),
    });
    expect(made.status).toBe(201);
    for (const log of [before, server.output()]) for (const secret of [s.secret, https.secret, s.csrf]) expect(log).not.toContain(secret);
  } finally {
    await server.stop();
  }
});

test('on PostgreSQL a session made on one instance works on another, and signing out on either ends it on both', async () => {
  test.skip(!process.env.TEST_DATABASE_URL, 'needs TEST_DATABASE_URL (a PostgreSQL server)');
  test.setTimeout(120_000);
  const db = await freshDatabase(process.env.TEST_DATABASE_URL!, 'triad_sessions');
  const env = { DATABASE_URL: db.url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex'), TRIAD_DEMO: '0' };
  const [a, b] = await Promise.all([startServer(freshDataDir(), env), startServer(freshDataDir(), env)]);
  try {
    const { org_token } = await runAdmin({ ...env, TRIAD_DATA_DIR: a.dataDir }, ['org', 'create', '--name', 'Two instances']);
    const s = await signIn(a.url, org_token!);
    const who = await fetch(`${b.url}/api/session`, { headers: { cookie: s.cookie } });
    expect(who.status).toBe(200);
    expect(((await who.json()) as { data: { organization: { name: string } } }).data.organization.name).toBe('Two instances');
    const out = await fetch(`${b.url}/api/session`, {
      method: 'DELETE',
      headers: { cookie: s.cookie, 'x-csrf-token': s.csrf, origin: b.url },
    });
    expect(out.status).toBe(200);
    expect((await fetch(`${a.url}/api/org/api-keys`, { headers: { cookie: s.cookie } })).status).toBe(401);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await db.drop();
  }
});
