import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort, freshDataDir, removeDataDirs, startServer } from '../support/server';

/*
 * Who counts as "this machine" for the local-only conveniences (demo credentials to a browser,
 * metrics without a token), under each way Triad can be started. A peer address is never taken from
 * a header a client can send; listening beyond loopback turns the conveniences off unless asked for.
 */
test.afterAll(removeDataDirs);

const demo = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/api/demo/credentials`, { headers });
const metrics = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/api/metrics`, { headers });
const forged: Record<string, string>[] = [{ 'x-triad-peer': '127.0.0.1' }, { 'x-triad-peer': 'guessed-key direct 127.0.0.1' }, {}];

test('npm start on loopback (the default): demo credentials and metrics to this machine, never to a forged peer header', async () => {
  const server = await startServer(freshDataDir(), { TRIAD_DEMO: '1' });
  try {
    expect((await demo(server.url)).status).toBe(200);
    expect((await metrics(server.url)).status).toBe(200);
    // What a client sends as x-triad-peer is replaced by the socket's address: still this machine.
    expect((await demo(server.url, { 'x-triad-peer': '203.0.113.9' })).status).toBe(200);
    // A proxy's forwarding header makes the request remote.
    expect((await demo(server.url, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(404);
  } finally {
    await server.stop();
  }
});

test('listening on every address turns them off unless TRIAD_LOCAL_ROUTES=on; TRIAD_LOCAL_ROUTES=off turns them off on loopback', async () => {
  const open = await startServer(freshDataDir(), { TRIAD_DEMO: '1', TRIAD_HOST: '0.0.0.0' });
  const optedIn = await startServer(freshDataDir(), { TRIAD_DEMO: '1', TRIAD_HOST: '0.0.0.0', TRIAD_LOCAL_ROUTES: 'on' });
  const off = await startServer(freshDataDir(), { TRIAD_DEMO: '1', TRIAD_LOCAL_ROUTES: 'off' });
  try {
    for (const s of [open, off]) {
      expect((await demo(s.url)).status, s.url).toBe(404);
      expect((await metrics(s.url)).status, s.url).toBe(401);
    }
    expect((await demo(optedIn.url)).status).toBe(200);
    expect((await metrics(optedIn.url)).status).toBe(200);
  } finally {
    await Promise.all([open.stop(), optedIn.stop(), off.stop()]);
  }
});

test('plain `next start` (no Triad server around it) believes no peer header', async () => {
  const port = await freePort();
  const root = path.resolve(import.meta.dirname, '../..');
  const proc = spawn(
    process.execPath,
    [path.join(root, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'],
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: '',
        TRIAD_DATA_DIR: freshDataDir(),
        TRIAD_DEMO: '1',
        TRIAD_LOCAL_ROUTES: 'on',
        NODE_ENV: 'production',
      },
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await expect.poll(async () => (await fetch(`${url}/api/health`).catch(() => null))?.status, { timeout: 60_000 }).toBe(200);
    for (const headers of forged) {
      expect((await demo(url, headers)).status, JSON.stringify(headers)).toBe(404);
      expect((await metrics(url, headers)).status, JSON.stringify(headers)).toBe(401);
    }
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
  }
});

test("pathological request targets are refused before the framework parses them, in each group's shape, with the security headers", async () => {
  const server = await startServer(freshDataDir(), { TRIAD_DEMO: '0' });
  try {
    const repeated = Array(7900).fill('a').join('&'); // ~16 KB: what the header limit lets through
    for (const [target, shape] of [
      [`/api/health?${repeated}`, { message: 'INVALID_PARAMETERS', status: 400 }],
      [`/api/v1/uptime?${repeated}`, { message: 'INVALID_PARAMETERS', status: 400 }],
      [`/organization/api/v1/aliases?${repeated}`, { message: 'NOT_FOUND', status: 400 }],
      [`/api/v1/chat/completions?${repeated}`, { type: 'invalid_request_error', code: 'invalid_request' }],
      ['/organization/api/v1/alias/%E0%A4%A', { message: 'NOT_FOUND', status: 400 }],
      ['/stats/%E0%A4%A', { message: 'INVALID_PARAMETERS', status: 400 }],
    ] as const) {
      const res = await fetch(`${server.url}${target}`, { method: target.includes('chat') ? 'POST' : 'GET' });
      expect(res.status, target.slice(0, 60)).toBe(400);
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(((await res.json()) as { error: object }).error).toMatchObject(shape);
    }
    // The server is not held up: an ordinary request right after is answered.
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  } finally {
    await server.stop();
  }
});
