import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { rememberSecrets, runAdmin, runAdminRaw } from '../support/fixtures';
import { freshDataDir, removeDataDirs, startServer } from '../support/server';

/** Every file below `dir`, for searching the raw bytes of the embedded database. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}
const rawContains = (dir: string, needle: string) => filesUnder(dir).some((f) => fs.readFileSync(f).includes(Buffer.from(needle)));

async function check(url: string, body: Record<string, string>) {
  const res = await fetch(`${url}/api/credentials/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Record<string, { valid: boolean }> }).data;
}

test.describe.configure({ mode: 'serial' });
test.afterAll(removeDataDirs);

test('a second server on the same data directory refuses to start, and the first keeps serving', async () => {
  const dataDir = freshDataDir();
  const first = await startServer(dataDir);
  try {
    const second = await startServer(dataDir);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`The data directory ${dataDir} is in use by another Triad process (pid ${first.proc.pid}`);
    const health = await fetch(`${first.url}/api/health`);
    expect(health.status).toBe(200);
  } finally {
    await first.stop();
  }
  expect(fs.existsSync(path.join(dataDir, 'triad.lock'))).toBe(false);
});

test('data survives a clean restart and a kill -9; the admin CLI goes through the running server', async () => {
  const dataDir = freshDataDir();
  const env = { TRIAD_DATA_DIR: dataDir };
  let server = await startServer(dataDir);
  const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Survivor']);
  const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '5']);
  // The CLI did not take the lock from the server: the server still holds it and answers.
  expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'triad.lock'), 'utf8')).pid).toBe(server.proc.pid);
  expect(await check(server.url, { org_token: org_token!, api_key: api_key! })).toMatchObject({
    org_token: { valid: true },
    api_key: { valid: true },
  });

  expect(await server.stop('SIGTERM')).toBe(0);
  server = await startServer(dataDir);
  expect(await check(server.url, { org_token: org_token!, api_key: api_key! })).toMatchObject({
    org_token: { valid: true },
    api_key: { valid: true },
  });

  // Written just before the kill, acknowledged, then the process dies without any chance to flush.
  const late = await runAdmin(env, ['token', 'create', '--org', org_id!]);
  await server.stop('SIGKILL');
  expect(fs.existsSync(path.join(dataDir, 'triad.lock'))).toBe(true); // left behind by the killed process
  server = await startServer(dataDir);
  try {
    expect(server.output()).not.toContain('in use by another');
    expect(await check(server.url, { org_token: late.org_token! })).toMatchObject({ org_token: { valid: true } });
    expect(await check(server.url, { org_token: org_token! })).toMatchObject({ org_token: { valid: true } });
  } finally {
    await server.stop();
  }
});

test('a revoked org token or API key is rejected from then on', async () => {
  const dataDir = freshDataDir();
  const env = { TRIAD_DATA_DIR: dataDir, TRIAD_DEMO: '0' };
  const server = await startServer(dataDir, { TRIAD_DEMO: '0' });
  try {
    const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Revoker']);
    const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!]);
    expect(await runAdmin(env, ['token', 'revoke', '--token', org_token!])).toEqual({ revoked: true });
    expect(await runAdmin(env, ['apikey', 'revoke', '--key', api_key!])).toEqual({ revoked: true });
    expect(await check(server.url, { org_token: org_token!, api_key: api_key! })).toMatchObject({
      org_token: { valid: false },
      api_key: { valid: false },
    });
    const again = await runAdminRaw(env, ['token', 'revoke', '--token', org_token!]);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe('admin: no such active org token');
  } finally {
    await server.stop();
  }
});

test('tokens, keys and secrets are never stored in plaintext, only their hashes', async () => {
  const dataDir = freshDataDir();
  const env = { TRIAD_DATA_DIR: dataDir };
  const server = await startServer(dataDir);
  const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Hashing']);
  const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!]);
  const { partner_secret } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', 'P']);
  const demo = await runAdmin(env, ['demo']);
  expect(await server.stop()).toBe(0);
  const { createHash } = await import('node:crypto');
  const pgDir = path.join(dataDir, 'pglite');
  for (const secret of [org_token!, api_key!, partner_secret!, demo.org_token as string, demo.api_key as string]) {
    expect(rawContains(pgDir, secret), `plaintext of ${secret.slice(0, 8)}… found in the database files`).toBe(false);
    // The search does see stored text: each credential's hash is there.
    expect(rawContains(pgDir, createHash('sha256').update(secret).digest('hex'))).toBe(true);
  }
});

test('first start on an empty store sets up the demo once and writes demo-credentials.json', async () => {
  const dataDir = freshDataDir();
  let server = await startServer(dataDir);
  const file = path.join(dataDir, 'demo-credentials.json');
  const creds = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(Object.keys(creds).sort()).toEqual(['api_key', 'org_token', 'partner_node_ids', 'partner_secret']);
  expect(creds.org_token).toMatch(/^org_/);
  expect(creds.api_key).toMatch(/^sk_live_/);
  expect(creds.partner_secret).toMatch(/^pt_sec_/);
  expect(server.output()).toContain(creds.org_token);
  expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
  expect(await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['demo'])).toEqual(creds);
  await server.stop();
  server = await startServer(dataDir);
  try {
    expect(server.output()).not.toContain(creds.org_token); // printed on the first start only
    expect(
      await check(server.url, { org_token: creds.org_token, api_key: creds.api_key, partner_secret: creds.partner_secret }),
    ).toMatchObject({
      org_token: { valid: true },
      api_key: { valid: true },
      partner_secret: { valid: true },
    });
  } finally {
    await server.stop();
  }
});

test('the admin CLI works with no server running, and fails with one line and a non-zero code', async () => {
  const dataDir = freshDataDir();
  const env = { TRIAD_DATA_DIR: dataDir };
  const { org_id } = await runAdmin(env, ['org', 'create', '--name', 'Offline']);
  expect(await runAdmin(env, ['token', 'create', '--org', org_id!])).toHaveProperty('org_token');
  const { partner_id } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', 'P']);
  expect(await runAdmin(env, ['node', 'register', '--partner', partner_id!, '--external-id', 'n-1', '--ip', '10.0.0.1'])).toEqual({
    partner_node_id: 'n-1',
  });
  expect(fs.existsSync(path.join(dataDir, 'triad.lock'))).toBe(false);
  for (const [args, message] of [
    [['token', 'create', '--org', 'no-such-org'], 'admin: no organization with id no-such-org'],
    [['apikey', 'create', '--org', org_id!, '--rpm', 'zero'], 'admin: apikey create: --rpm: Invalid input: expected number, received NaN'],
    [['frobnicate'], 'admin: unknown command "frobnicate"'],
  ] as const) {
    const r = await runAdminRaw(env, [...args]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(message);
  }
});

test('a bad setting stops the start with a message naming it', async () => {
  for (const [env, message] of [
    [{ TRIAD_DEMO: 'maybe' }, 'Invalid configuration: TRIAD_DEMO:'],
    [{ TRIAD_MAX_BODY_BYTES: '-5' }, 'Invalid configuration: TRIAD_MAX_BODY_BYTES:'],
    [{ PORT: 'eighty' }, 'Invalid configuration: PORT:'],
  ] as const) {
    const server = await startServer(freshDataDir(), env);
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain(message);
  }
});

test('`npm run admin` (the checkout’s CLI, through tsx, as the README has it) makes a new data directory from nothing, and a server started on it serves what it made', async () => {
  const dataDir = freshDataDir();
  const { execFile } = await import('node:child_process');
  const npm = (args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile(
        'npm',
        ['run', '--silent', 'admin', '--', ...args],
        { env: { ...process.env, TRIAD_DATA_DIR: dataDir, TRIAD_LOG_LEVEL: 'warn' } },
        (e, out, err) => (e ? reject(new Error(`${e.message}\n${err}`)) : resolve(out)),
      ),
    );
  const made = JSON.parse(await npm(['org', 'create', '--name', 'Made by npm run admin', '--json'])) as {
    org_id: string;
    org_token: string;
  };
  rememberSecrets([made.org_token]);
  expect(made.org_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(fs.existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);
  const server = await startServer(dataDir, { TRIAD_DEMO: '0' });
  try {
    expect(await check(server.url, { org_token: made.org_token })).toMatchObject({ org_token: { valid: true } });
  } finally {
    await server.stop();
  }
});
