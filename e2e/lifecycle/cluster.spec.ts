import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freshDatabase } from '../../lib/db/fresh-database';
import { runAdmin } from '../support/fixtures';
import { freePort, freePortPair } from '../support/server';

/*
 * Two instances (npm run start:cluster) on one PostgreSQL and one Redis of the test's own (a
 * redis-server on a spare port: the machine's shared Redis is never stopped). A per-key limit of N
 * holds across both; with Redis stopped mid-run both keep serving on their insurance limiters and
 * health says so; Redis started again, both count in it again within 5 s.
 */
const base = process.env.TEST_DATABASE_URL;
const root = path.resolve(import.meta.dirname, '../..');

function waitFor(proc: ChildProcess, text: string, times: number, output: () => string) {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${text}:\n${output()}`)), 90_000);
    const check = () => output().split(text).length - 1 >= times && (clearTimeout(timer), resolve());
    proc.stdout!.on('data', check);
    proc.stderr!.on('data', check);
    proc.on('exit', () => (clearTimeout(timer), reject(new Error(`exited early:\n${output()}`))));
  });
}

test.skip(!base, 'needs TEST_DATABASE_URL (a PostgreSQL server)');
test.skip(!fs.existsSync('/usr/bin/redis-server'), 'needs redis-server');

test('two instances share one per-key limit through Redis, keep serving without it, and share it again once Redis is back', async () => {
  test.setTimeout(180_000);
  const db = await freshDatabase(base!, 'triad_cluster');
  const redisPort = await freePort();
  const startRedis = () =>
    spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
  let redis = startRedis();
  const basePort = await freePortPair();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-cluster-'));
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    TRIAD_SECRET_KEY: randomBytes(32).toString('hex'),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    TRIAD_REDIS_PREFIX: `cluster-${Date.now()}`,
    TRIAD_DATA_DIR: dataDir,
    TRIAD_DEMO: '0',
    TRIAD_GUIDE_DELAY_MS: '0',
    TRIAD_LOG_LEVEL: 'warn',
  };
  const cluster = spawn(
    process.execPath,
    [path.join(root, 'scripts/start-cluster.mjs'), '--instances', '2', '--base-port', String(basePort), '--no-build'],
    { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: root },
  );
  let out = '';
  cluster.stdout!.on('data', (d) => (out += d));
  cluster.stderr!.on('data', (d) => (out += d));
  try {
    await waitFor(cluster, '"msg":"ready"', 2, () => out);
    const urls = [`http://127.0.0.1:${basePort}`, `http://127.0.0.1:${basePort + 1}`];
    const adminEnv = { DATABASE_URL: env.DATABASE_URL, TRIAD_SECRET_KEY: env.TRIAD_SECRET_KEY, TRIAD_DATA_DIR: dataDir };
    const { org_id } = await runAdmin(adminEnv, ['org', 'create', '--name', 'Cluster']);
    const chat = (i: number, key: string) =>
      fetch(`${urls[i % 2]}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'triad-guide', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] }),
      });

    // N + k concurrent requests at limit N, split over both instances: exactly N succeed.
    const { api_key: shared } = await runAdmin(adminEnv, ['apikey', 'create', '--org', org_id!, '--rpm', '10']);
    const statuses = (await Promise.all(Array.from({ length: 14 }, (_, i) => chat(i, shared!)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);

    // Redis goes away mid-run: no 5xx; each instance limits on its own (insurance limiter).
    redis.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    const { api_key: alone } = await runAdmin(adminEnv, ['apikey', 'create', '--org', org_id!, '--rpm', '3']);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => chat(i, alone!).then((r) => [i % 2, r.status] as const)));
    expect(results.every(([, s]) => s < 500)).toBe(true);
    for (const instance of [0, 1]) {
      const mine = results.filter(([i]) => i === instance).map(([, s]) => s);
      expect(mine.filter((s) => s === 200)).toHaveLength(3);
      expect(mine.filter((s) => s === 429)).toHaveLength(2);
    }
    // Health says where limits are counted now: still 200 (every request is served), on each instance's memory.
    const store = async (u: string) =>
      ((await (await fetch(`${u}/api/health`)).json()) as { rate_limits: { store: string } }).rate_limits.store;
    for (const u of urls) {
      expect((await fetch(`${u}/api/health`)).status).toBe(200);
      expect(await store(u)).toBe('memory-fallback');
    }

    // Redis back on its port: within 5 s both instances count in it again, and a limit of N holds across them.
    redis = startRedis();
    const back = Date.now();
    await expect.poll(async () => (await Promise.all(urls.map(store))).join(), { timeout: 5000, intervals: [100] }).toBe('redis,redis');
    console.log(`redis: both instances count in Redis again ${Date.now() - back} ms after it was started`);
    const { api_key: again } = await runAdmin(adminEnv, ['apikey', 'create', '--org', org_id!, '--rpm', '6']);
    const rejoined = (await Promise.all(Array.from({ length: 10 }, (_, i) => chat(i, again!)))).map((r) => r.status);
    expect(rejoined.filter((s) => s === 200)).toHaveLength(6);
    expect(rejoined.filter((s) => s === 429)).toHaveLength(4);
  } finally {
    cluster.kill('SIGTERM');
    await new Promise((r) => cluster.once('exit', r));
    redis.kill('SIGKILL');
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
