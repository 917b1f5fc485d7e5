// `npm run bench:stats`: the statistics endpoints against the trivial route of the same server, for a
// fleet of 1 000 nodes with 2 days of history (ingested through the API, its rate read on the fresh
// server and again warm, in batches of 1 000 events) and one with 365 days. Runs on the embedded PGlite
// and, when TEST_DATABASE_URL (or BENCH_DATABASE_URL) names a PostgreSQL server, on a fresh database
// there too. Prints tables; asserts nothing.
import { sql } from 'drizzle-orm';
import { createOrganization, createOrgToken, createPartner } from '@/lib/auth/credentials';
import { openDatabase, type OpenOptions } from '@/lib/db/client';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { withFreshDatabase } from '../../lib/db/fresh-database';
import { load, printTable, type LoadResult } from '../lib/load';
import { freshDataDir, removeDataDirs, startServer } from '../lib/server';

const NODES = Number(process.env.BENCH_NODES ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const EVENTS_PER_NODE = Number(process.env.BENCH_EVENTS_PER_NODE ?? 100);
const SECRET_KEY = 'be0c'.repeat(16);
const H = 3_600_000;
const DAY = 24 * H;

type Setup = { orgToken: string; dayPartner: string; yearPartner: string };

/**
 * Organization, two partners and their nodes; the 365-day history is written straight into the tables.
 * On the embedded database the seeding (7.3 million rollups in one statement, in this process) runs with
 * BENCH_SEED_SHARED_BUFFERS_MB (32) of shared buffers: 81 s, where with the server's 4 it took 185 s
 * (docs/benchmarks.md, the twenty-third and twenty-fourth sections). This process's configuration is
 * read once, at this first opening; the variable is put back after it, so the server under test starts
 * with its own setting, as users run it.
 */
async function seed(options: OpenOptions): Promise<Setup> {
  const own = process.env.TRIAD_PGLITE_SHARED_BUFFERS_MB;
  process.env.TRIAD_PGLITE_SHARED_BUFFERS_MB = process.env.BENCH_SEED_SHARED_BUFFERS_MB ?? '32';
  const d = await openDatabase(options).finally(() => {
    if (own === undefined) delete process.env.TRIAD_PGLITE_SHARED_BUFFERS_MB;
    else process.env.TRIAD_PGLITE_SHARED_BUFFERS_MB = own;
  });
  try {
    const org = await createOrganization(d.db, { name: 'Bench' });
    const { token } = await createOrgToken(d.db, { orgId: org.id });
    const day = await createPartner(d.db, { orgId: org.id, name: '2 days' });
    const year = await createPartner(d.db, { orgId: org.id, name: '365 days' });
    const now = Date.now();
    const today = now - (now % DAY);
    for (const [partner, prefix] of [
      [day.id, 'd'],
      [year.id, 'y'],
    ] as const) {
      await d.db.execute(sql`
        insert into nodes (partner_id, external_id, public_id, public_name, ip)
        select ${partner}, ${prefix} || '-' || lpad(i::text, 4, '0'), 'nd_' || ${prefix} || i, 'Node ' || i, '10.1.' || (i / 256) || '.' || (i % 256)
        from generate_series(1, ${NODES}) as i`);
    }
    // 365 days: every node up 00:00–20:00 UTC each day (one session a day, 20 hourly rollups).
    const first = today - 365 * DAY;
    await d.db.execute(sql`
      insert into node_sessions (node_id, connected_at, disconnected_at, opened_by)
      select n.id, ${first}::bigint + g * ${DAY}::bigint, ${first}::bigint + g * ${DAY}::bigint + ${20 * H}::bigint, 'connect'
      from nodes n, generate_series(0, 364) as g where n.partner_id = ${year.id}`);
    await d.db.execute(sql`
      insert into node_uptime_hourly (node_id, hour_start, uptime_ms)
      select n.id, ${first}::bigint + g * ${DAY}::bigint + h * ${H}::bigint, ${H}::int
      from nodes n, generate_series(0, 364) as g, generate_series(0, 19) as h where n.partner_id = ${year.id}`);
    await d.db.execute(
      sql`update nodes set total_uptime_ms = ${365 * 20 * H}::bigint, last_event_at = ${first + 364 * DAY + 20 * H}::bigint where partner_id = ${year.id}`,
    );
    return { orgToken: token, dayPartner: day.secret, yearPartner: year.secret };
  } finally {
    await d.close();
  }
}

async function run(label: string, options: OpenOptions, env: Record<string, string>) {
  const started = Date.now();
  const setup = await seed(options);
  console.error(`${label}: seeded ${NODES} + ${NODES} nodes (365 days of rollups) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const dataDir = options.driver === 'pglite' ? options.dataDir : freshDataDir();
  const server = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_LOG_LEVEL: 'warn', TRIAD_STATS_RATE_PER_S: '1000000', ...env });
  try {
    const auth = { authorization: `Bearer ${setup.orgToken}`, 'content-type': 'application/json' };
    // Ingestion: the short-history partner's two days through the API, 1 000 events a batch, each node's
    // events in order. The first day is read on the fresh server (its first seconds of load: the JavaScript
    // and the embedded database's WebAssembly still being compiled), the second on the same server, warm.
    const base = Date.now() - 2 * DAY;
    const ids = Array.from({ length: NODES }, (_, i) => `d-${String(i + 1).padStart(4, '0')}`);
    const step = Math.floor(DAY / EVENTS_PER_NODE);
    const ingestion: { sent: number; seconds: number; rate: number }[] = [];
    for (const day of [0, 1]) {
      const events = [];
      for (let k = 0; k < EVENTS_PER_NODE; k++) {
        for (let j = 0; j < NODES; j++)
          events.push({
            partner_node_id: ids[j]!,
            type: k % 2 ? 'disconnect' : 'connect',
            at: base + day * DAY + k * step + j,
            event_id: `e${day}-${k}`,
          });
      }
      const t0 = performance.now();
      for (let i = 0; i < events.length; i += 1000) {
        const res = await fetch(`${server.url}/api/v1/node/events`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ secret: setup.dayPartner, events: events.slice(i, i + 1000) }),
        });
        if (!res.ok) throw new Error(`ingestion failed: ${res.status} ${await res.text()}`);
      }
      const seconds = (performance.now() - t0) / 1000;
      ingestion.push({ sent: events.length, seconds, rate: Math.round(events.length / seconds) });
    }

    const now = Date.now();
    const q = (secret: string, params: string) => `?secret=${encodeURIComponent(secret)}&${params}`;
    const range = `started_at=${now - 14 * DAY}&ended_at=${now}`;
    const scenarios: [string, string][] = [
      ['trivial route (GET /api/ping)', '/api/ping'],
      ['uptime, 2 days of history', `/api/v1/uptime${q(setup.dayPartner, `partner_node_id=d-0500&${range}`)}`],
      ['uptime, 365 days of history', `/api/v1/uptime${q(setup.yearPartner, `partner_node_id=y-0500&${range}`)}`],
      ['uptime total, 365 days', `/api/v1/uptime${q(setup.yearPartner, 'partner_node_id=y-0500')}`],
      [
        'uptimes (5 ids), 365 days',
        `/api/v1/uptimes${q(setup.yearPartner, `${[1, 2, 3, 4, 5].map((i) => `partner_node_id[]=y-000${i}`).join('&')}&${range}`)}`,
      ],
      [
        'details (10 ids), 365 days',
        `/api/v1/partner/details${q(setup.yearPartner, Array.from({ length: 10 }, (_, i) => `partner_node_id[]=y-00${10 + i}`).join('&'))}`,
      ],
      ['node list (50), 365 days', `/api/v1/partner/nodes${q(setup.yearPartner, 'limit=50')}`],
    ];
    // Each scenario warmed with its own load first (the trivial route loads Next at its first request).
    for (const [, path] of scenarios) await load('warm-up', { url: server.url + path, seconds: 2, connections: CONNECTIONS });
    const rows: LoadResult[] = [];
    for (const [name, path] of scenarios)
      rows.push(
        await load(name, {
          url: server.url + path,
          seconds: SECONDS,
          connections: CONNECTIONS,
          headers: { authorization: auth.authorization },
        }),
      );
    console.log(
      `\nbench:stats — ${label}, ${NODES} nodes a fleet, ${CONNECTIONS} connections, ${SECONDS} s a scenario, node ${process.version}\n`,
    );
    printTable(rows, rows[0]);
    const day1 = rows[1]!;
    const year = rows[2]!;
    console.log(`\nuptime p50: ${day1.p50} ms with 2 days of history, ${year.p50} ms with 365 days (target: within ±50 %)`);
    for (const [i, { sent, seconds, rate }] of ingestion.entries())
      console.log(
        `ingestion, ${i ? 'warm (the next day, same server)' : 'fresh server'}: ${sent} events in ${seconds.toFixed(1)} s = ${rate} events/s over HTTP, batches of 1 000 (target ≥ 10 000/s on PostgreSQL)`,
      );
  } finally {
    await server.stop();
  }
}

async function main() {
  buildIfNeeded();
  await run('embedded PGlite', { driver: 'pglite', dataDir: freshDataDir() }, {});
  const base = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (base) {
    await withFreshDatabase(base, 'triad_bench', (url) =>
      run('PostgreSQL', { driver: 'postgres', url }, { DATABASE_URL: url, TRIAD_SECRET_KEY: SECRET_KEY }),
    );
  } else {
    console.log('\n(set TEST_DATABASE_URL to a PostgreSQL server to measure on PostgreSQL too)');
  }
  removeDataDirs();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
