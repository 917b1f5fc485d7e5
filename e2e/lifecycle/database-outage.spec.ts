import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import pg from 'pg';
import { runAdmin } from '../support/fixtures';
import { ownPostgres, postgresBin } from '../support/own-postgres';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * PostgreSQL goes away under load and comes back (design §12). Triad runs on a PostgreSQL server of
 * the test's own, which is stopped with `pg_ctl stop -m fast` while statistics reads, event ingestion
 * and chat completions go on: every request is answered within 2 s, with 200 or its group's 503 (never
 * a 500 or a hang), /api/health says so, service returns by itself within 5 s of the server's return,
 * and every event batch that was acknowledged is stored.
 */
test.afterAll(removeDataDirs);
test.skip(!postgresBin(), 'needs the PostgreSQL server binaries (initdb, pg_ctl)');

type Sample = { kind: string; status: number; ms: number; at: number; body: string };

test('PostgreSQL stopped under load: fast 503s in each group’s shape, health says so, recovery within 5 s, no acknowledged write lost', async () => {
  test.setTimeout(120_000);
  const db = await ownPostgres(await freePort());
  let server: RunningServer | undefined;
  try {
    const env = { DATABASE_URL: db.url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex') };
    server = await startServer(freshDataDir(), {
      ...env,
      TRIAD_DEMO: '0',
      TRIAD_AUTH_CACHE_TTL_MS: '0',
      TRIAD_GUIDE_DELAY_MS: '0',
      TRIAD_STATS_RATE_PER_S: '100000',
    });
    const s = server;
    const admin = (args: string[]) => runAdmin({ ...env, TRIAD_DATA_DIR: s.dataDir }, args);
    const { org_id, org_token } = await admin(['org', 'create', '--name', 'Outage']);
    const { api_key } = await admin(['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
    const { partner_id, partner_secret } = await admin(['partner', 'create', '--org', org_id!, '--name', 'P']);
    await admin(['node', 'register', '--partner', partner_id!, '--external-id', 'n1']);

    const samples: Sample[] = [];
    const acknowledged: string[] = [];
    let running = true;
    let seq = 0;
    const timed = async (kind: string, url: string, init: RequestInit) => {
      const started = Date.now();
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
      const body = await res.text();
      samples.push({ kind, status: res.status, ms: Date.now() - started, at: started, body });
      return res.status;
    };
    const loops = [
      async () => {
        while (running) {
          const id = `ev-${seq++}`;
          const status = await timed('events', `${s.url}/api/v1/node/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${org_token}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              secret: partner_secret,
              events: [{ partner_node_id: 'n1', type: 'heartbeat', at: Date.now(), event_id: id }],
            }),
          });
          if (status === 200) acknowledged.push(id);
        }
      },
      async () => {
        while (running)
          await timed('stats', `${s.url}/api/v1/partner/nodes?secret=${partner_secret}`, {
            headers: { authorization: `Bearer ${org_token}` },
          });
      },
      async () => {
        while (running)
          await timed('chat', `${s.url}/api/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
          });
      },
    ];
    const load = Promise.all(loops.map((l) => l()));
    await new Promise((r) => setTimeout(r, 1500));

    const stoppedAt = Date.now();
    await db.stop();
    await new Promise((r) => setTimeout(r, 3000));
    const health = await fetch(`${s.url}/api/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unavailable', database: { reachable: false } });

    await db.start();
    const backAt = Date.now();
    let recoveredAt = 0;
    while (!recoveredAt && Date.now() - backAt < 15_000) {
      const r = await fetch(`${s.url}/api/v1/partner/nodes?secret=${partner_secret}`, {
        headers: { authorization: `Bearer ${org_token}` },
      });
      if (r.status === 200) recoveredAt = Date.now();
      else await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await load;

    const slowest = Math.max(...samples.map((x) => x.ms));
    const figures = `recovered ${recoveredAt - backAt} ms after the database's return; ${samples.filter((x) => x.status === 503).length} × 503, ${samples.length} requests, slowest ${slowest} ms, ${acknowledged.length} event batches acknowledged`;
    test.info().annotations.push({ type: 'outage', description: figures });
    console.log(`database outage: ${figures}`);
    // Every answer within 2 s (plus a little for this machine), each 200 or its group's 503.
    expect(samples.filter((x) => x.ms > 2500).map((x) => `${x.kind} ${x.status} ${x.ms} ms`)).toEqual([]);
    expect(samples.filter((x) => x.status !== 200 && x.status !== 503).map((x) => `${x.kind} ${x.status} ${x.body}`)).toEqual([]);
    const during = samples.filter((x) => x.at > stoppedAt + 200 && x.at < backAt);
    for (const kind of ['events', 'stats', 'chat'])
      expect(during.filter((x) => x.kind === kind && x.status === 503).length).toBeGreaterThan(0);
    for (const x of during.filter((x) => x.status === 503)) {
      const body = JSON.parse(x.body) as { error: Record<string, unknown> };
      if (x.kind === 'chat') expect(body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
      else expect(body.error).toMatchObject({ message: 'SERVICE_UNAVAILABLE', status: 503 });
    }
    // Back within 5 s of the server's return, and serving every kind again.
    expect(recoveredAt).toBeGreaterThan(0);
    expect(recoveredAt - backAt).toBeLessThan(5000);
    const after = samples.filter((x) => x.at > recoveredAt);
    for (const kind of ['events', 'stats', 'chat']) expect(after.some((x) => x.kind === kind && x.status === 200)).toBe(true);
    expect((await fetch(`${s.url}/api/health`)).status).toBe(200);

    // Every acknowledged batch is stored.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ event_id: string }>('select event_id from node_events');
    await client.end();
    const stored = new Set(rows.map((r) => r.event_id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(10);
  } finally {
    await server?.stop();
    await db.remove();
  }
});
