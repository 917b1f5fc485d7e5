import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import { computeCacheBustingSearchParam } from 'next/dist/shared/lib/router/utils/cache-busting-search-param.js';
import { withFreshDatabase } from '../../lib/db/fresh-database';
import { childrenOf } from '../support/processes';
import { freePort, type RunningServer, spawnServer } from '../support/server';

/*
 * `npm run package` (design §15): dist/triad copied out of the checkout runs with `node server.js` and
 * nothing else — no npm, no checkout, no dev dependencies —, on the embedded database with the demo
 * (a page, health, a chat completion served by a demo node's agent through its tunnel) and on PostgreSQL.
 */
const root = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
let work: string;
let pkg: string;

test.beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-package-'));
  pkg = path.join(work, 'triad');
  // Written in the checkout's dist/ as an operator would, then copied away from it.
  execFileSync(process.execPath, [path.join(root, 'scripts/package.mjs')], { cwd: root, stdio: 'pipe' });
  fs.cpSync(path.join(root, 'dist', 'triad'), pkg, { recursive: true, verbatimSymlinks: true });
});
test.afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** A bare environment: nothing of the checkout's (no PATH to its tools, no NODE_PATH). */
const bare = (env: Record<string, string>) => ({ PATH: '/usr/bin:/bin', HOME: work, NODE_ENV: 'production' as const, ...env });

/** `node server.js` in the copied package (`nodeFlags` before it), from a directory of its own, with a bare environment. */
async function startPackage(cwd: string, env: Record<string, string>, nodeFlags: string[] = []): Promise<RunningServer> {
  const port = await freePort();
  const server = await spawnServer([...nodeFlags, path.join(pkg, 'server.js')], {
    cwd,
    port,
    dataDir: path.join(cwd, 'data'),
    env: bare({ PORT: String(port), TRIAD_GUIDE_DELAY_MS: '0', ...env }),
  });
  if (server.proc.exitCode !== null) throw new Error(`the package exited:\n${server.output()}`);
  return server;
}

/**
 * `node admin.mjs …` in the copied package (the checkout's `npm run admin -- …`), from `cwd`; its JSON reply.
 * Run without blocking this process: a test that waited synchronously kept its kept-alive connections from
 * seeing the server close them when idle, and its next request on one failed with "other side closed".
 */
async function admin(cwd: string, env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run(process.execPath, [path.join(pkg, 'admin.mjs'), ...args, '--json'], {
    cwd,
    env: bare(env),
  });
  return JSON.parse(stdout) as Record<string, string>;
}

async function chat(url: string, apiKey: string, model: string) {
  return fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'What is an alias?' }] }),
  });
}

test('the package holds the production dependencies only, and no checkout', () => {
  const modules = fs.readdirSync(path.join(pkg, 'node_modules'));
  for (const dev of ['typescript', 'esbuild', 'tsx', 'vitest', '@playwright', 'eslint', 'drizzle-kit', 'openai', 'sharp'])
    expect(modules, dev).not.toContain(dev);
  for (const needed of ['next', 'react', '@electric-sql', 'pg', 'ioredis', 'ws', 'pino']) expect(modules, needed).toContain(needed);
  for (const absent of ['app', 'components', 'e2e', 'scripts', 'dist', 'tsconfig.json', 'package-lock.json'])
    expect(fs.existsSync(path.join(pkg, absent)), absent).toBe(false);
  const manifest = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  expect(manifest.dependencies).toBeUndefined();
  expect(manifest.scripts).toBeUndefined();
});

test('node server.js serves the embedded default with the demo: a page, health, a chat completion through a demo node', async () => {
  test.setTimeout(180_000);
  const cwd = path.join(work, 'embedded');
  fs.mkdirSync(cwd);
  const server = await startPackage(cwd, {});
  try {
    // The data directory is the one of the directory it was started in, as with npm start.
    const credentials = JSON.parse(fs.readFileSync(path.join(cwd, 'data', 'demo-credentials.json'), 'utf8'));
    const health = await (await fetch(`${server.url}/api/health`)).json();
    expect(health).toMatchObject({ status: 'ok', database: { driver: 'pglite', reachable: true } });
    // The first start's banner names what the dashboard shows.
    expect(server.output()).toContain(
      `Dashboard: http://localhost:${new URL(server.url).port}/ — "Sign in" → "Sign in to the demo organization"`,
    );

    // A route handler and a page, served by the app as the package's Next runtime loads them.
    expect((await fetch(`${server.url}/api/openapi.json`)).status).toBe(200);
    const page = await fetch(`${server.url}/stats`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const script = /\/_next\/static\/[^"]+\.js/.exec(await (await fetch(`${server.url}/`)).text());
    expect(script).not.toBeNull();
    expect((await fetch(`${server.url}${script![0]}`)).status).toBe(200);
    // Pages are sent past Next here too (lib/server/prerendered.ts, with Next's function for an RSC request's
    // `_rsc`): a node's page, a navigation's payload; Next's runtime is not loaded for them.
    expect((await fetch(`${server.url}/stats/demo-node-001`)).status).toBe(200);
    const hash = await computeCacheBustingSearchParam(undefined, undefined, undefined, '/');
    const payload = await fetch(`${server.url}/stats?_rsc=${hash}`, { headers: { rsc: '1', 'next-url': '/' }, redirect: 'manual' });
    expect(payload.status).toBe(200);
    expect(payload.headers.get('content-type')).toBe('text/x-component');
    expect(server.output()).not.toContain('"msg":"app loaded"');

    // The demo's nodes serve through their agents (the agent's code, run in the server).
    await expect
      .poll(
        async () => {
          const r = await chat(server.url, credentials.api_key, 'triad-demo');
          await r.arrayBuffer();
          return r.headers.get('x-triad-provider');
        },
        { timeout: 30_000 },
      )
      .toMatch(/^demo-node-00[1-3]$/);
    const reply = await chat(server.url, credentials.api_key, 'triad-guide');
    expect(reply.status).toBe(200);
    expect((await reply.json()).choices[0].message.content).toMatch(/alias/i);
    // The admin CLI goes through the running server; a relative --out is the directory it was run from.
    await admin(cwd, {}, 'backup', '--out', 'triad.backup');
    expect(fs.statSync(path.join(cwd, 'triad.backup')).size).toBeGreaterThan(1000);
    const agent = await fetch(`${server.url}/downloads/triad-node.mjs`);
    expect(agent.status).toBe(200);
    expect(await agent.text()).toMatch(/^#!\/usr\/bin\/env node/);
    // Started as `node server.js`, the server runs with npm start's node flags (no warning about them).
    expect(server.output()).not.toContain('started without the node flags');
  } catch (e) {
    console.log(`the package's output:\n${server.output()}`); // what its start-up and the demo agents said
    throw e;
  } finally {
    server.proc.kill('SIGTERM');
  }
  // SIGTERM is passed on to the server, which shuts down in order.
  expect(await server.exited).toBe(0);
  expect(server.output()).toContain('shutting down: finishing open requests');
});

// Node 22.15 and later: `node server.js` becomes the server with its flags (process.execve), one process.
const canExecve = typeof (process as { execve?: unknown }).execve === 'function';
test('node server.js is the server itself, with its flags and environment: killed with -9, it starts again on the same data', async () => {
  test.skip(!canExecve, 'this Node has no process.execve: the launcher test below');
  test.setTimeout(120_000);
  const cwd = path.join(work, 'execve');
  fs.mkdirSync(cwd);
  const first = await startPackage(cwd, { TRIAD_DEMO: '0' });
  const pid = first.proc.pid!;
  expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual(
    expect.arrayContaining(['--no-memory-reducer', '--expose-gc', '--max-semi-space-size=16', path.join(pkg, 'server.js')]),
  );
  expect(fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_MMAP_THRESHOLD_=32768');
  expect(childrenOf(pid)).toEqual([]); // no second Node process
  first.proc.kill('SIGKILL');
  expect(await first.exited).toBeNull();
  // Started with some of the flags (gc() among them), it starts again with the others added, the given ones kept.
  const again = await startPackage(cwd, { TRIAD_DEMO: '0' }, ['--expose-gc', '--max-semi-space-size=8']);
  const args = fs.readFileSync(`/proc/${again.proc.pid!}/cmdline`, 'utf8').split('\0');
  expect(args).toEqual(expect.arrayContaining(['--expose-gc', '--max-semi-space-size=8', '--no-memory-reducer']));
  expect(args).not.toContain('--max-semi-space-size=16');
  expect((await fetch(`${again.url}/api/health`)).status).toBe(200);
  again.proc.kill('SIGTERM');
  expect(await again.exited).toBe(0);
});

test("on a Node without process.execve the server is the launcher's child: killed with -9, the launcher leaves the server to stop in order", async () => {
  test.skip(canExecve, 'this Node has process.execve: the test above');
  test.setTimeout(120_000);
  const cwd = path.join(work, 'killed');
  fs.mkdirSync(cwd);
  const first = await startPackage(cwd, { TRIAD_DEMO: '0' });
  first.proc.kill('SIGKILL');
  // The server (the launcher's child, in a process group of its own) sees its launcher gone and shuts down.
  await expect
    .poll(
      () =>
        fetch(`${first.url}/api/health`).then(
          (r) => r.status,
          () => 'closed',
        ),
      { timeout: 20_000 },
    )
    .toBe('closed');
  await expect.poll(() => fs.existsSync(path.join(cwd, 'data', 'triad.lock')), { timeout: 15_000 }).toBe(false);
  const again = await startPackage(cwd, { TRIAD_DEMO: '0' });
  expect((await fetch(`${again.url}/api/health`)).status).toBe(200);
  again.proc.kill('SIGTERM');
  expect(await again.exited).toBe(0);
});

test('node server.js serves on PostgreSQL (DATABASE_URL)', async () => {
  test.skip(!process.env.TEST_DATABASE_URL, 'needs TEST_DATABASE_URL (a PostgreSQL server)');
  test.setTimeout(120_000);
  await withFreshDatabase(process.env.TEST_DATABASE_URL!, 'triad_package', async (url) => {
    const cwd = path.join(work, 'postgres');
    fs.mkdirSync(cwd);
    const env = { DATABASE_URL: url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex'), TRIAD_DEMO: '0' };
    const server = await startPackage(cwd, env);
    try {
      const health = await (await fetch(`${server.url}/api/health`)).json();
      expect(health).toMatchObject({ status: 'ok', database: { driver: 'postgres', reachable: true } });
      // An operator makes an organization and its key with the package's admin CLI.
      const { org_id } = await admin(cwd, env, 'org', 'create', '--name', 'Packaged');
      const { api_key } = await admin(cwd, env, 'apikey', 'create', '--org', org_id!);
      const reply = await chat(server.url, api_key!, 'triad-guide');
      expect(reply.status).toBe(200);
      expect((await reply.json()).usage.completion_tokens).toBeGreaterThan(0);
    } finally {
      server.proc.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });
});
