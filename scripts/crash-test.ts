// `npm run test:crash`: under a load of alias creates and node events, `kill -9` the server, start it
// again on the same store, and check that every write it acknowledged (201 / 200) is still there.
// On the embedded PGlite store, and on PostgreSQL when TEST_DATABASE_URL names a server.
// Prints acknowledged / found / lost for each; exits non-zero if anything acknowledged was lost.
import { runAdmin } from './lib/admin-cli';
import { buildIfNeeded } from './build-if-needed.mjs';
import { withFreshDatabase } from '../lib/db/fresh-database';
import { freshDataDir, removeDataDirs, startServer } from './lib/server';
import { scriptOptions } from './lib/cli.mjs';

const LOAD_MS = Number(process.env.CRASH_LOAD_MS ?? 4000);

// No options (CRASH_LOAD_MS and TEST_DATABASE_URL are read from the environment): `--help` says so.
scriptOptions('usage: npm run test:crash   (no options; CRASH_LOAD_MS: the load before the kill, 4000; TEST_DATABASE_URL: PostgreSQL too)');
const WORKERS = 4;
const SECRET_KEY = 'c4a5'.repeat(16);

async function trial(label: string, env: Record<string, string>, adminEnv: Record<string, string>) {
  const dataDir = freshDataDir();
  let server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_LOG_LEVEL: 'warn',
    TRIAD_LINK_RATE_PER_S: '100000',
    TRIAD_STATS_RATE_PER_S: '100000',
    ...env,
  });
  const admin = { TRIAD_DATA_DIR: dataDir, ...adminEnv };
  const { org_id, org_token } = await runAdmin(admin, ['org', 'create', '--name', 'Crash']);
  const { partner_id, partner_secret } = await runAdmin(admin, ['partner', 'create', '--org', org_id!, '--name', 'P']);
  await runAdmin(admin, ['node', 'register', '--partner', partner_id!, '--external-id', 'crash-node']);
  const headers = { authorization: `Bearer ${org_token}`, 'content-type': 'application/json' };
  const url = server.url;

  const ackAliases = new Set<string>();
  let ackEvents = 0;
  let seq = 0;
  let running = true;
  const createAlias = async (name: string) => {
    const res = await fetch(`${url}/organization/api/v1/alias/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'live', name, expired_at: Math.floor(Date.now() / 1000) + 86_400 }),
    });
    if (res.status === 201) ackAliases.add(((await res.json()) as { data: { id: string } }).data.id);
    return res.status;
  };
  const sendEvents = async () => {
    const base = Date.now() - 3_600_000;
    const events = Array.from({ length: 20 }, () => ({
      partner_node_id: 'crash-node',
      type: 'heartbeat',
      at: base + seq,
      event_id: `e${seq++}`,
      usd_earned: '1',
    }));
    const res = await fetch(`${url}/api/v1/node/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ secret: partner_secret, events }),
    });
    if (res.status === 200) {
      // Read first, then add: `x += await …` would read x before the await and lose updates.
      const { accepted } = ((await res.json()) as { data: { accepted: number } }).data;
      ackEvents += accepted;
    }
    return res.status;
  };
  // One write of each kind before the clock starts, so that a slow first request (a busy machine)
  // cannot leave the trial with nothing acknowledged, and so nothing proven.
  const warm = [await createAlias('warm-up'), await sendEvents()];
  if (warm[0] !== 201 || warm[1] !== 200) throw new Error(`${label}: the warm-up writes answered ${warm.join(', ')}`);
  const [warmAliases, warmEvents] = [ackAliases.size, ackEvents];
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      try {
        if (i % 2 === 0) await createAlias(`w${w}-${i}`);
        else await sendEvents();
      } catch {
        // the server is gone: requests in flight fail, and were never acknowledged
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
  await new Promise((r) => setTimeout(r, LOAD_MS));
  server.proc.kill('SIGKILL');
  await server.exited;
  running = false;
  await Promise.all(workers);
  if (ackAliases.size === warmAliases || ackEvents === warmEvents) {
    throw new Error(
      `${label}: the load got no write of some kind acknowledged in ${LOAD_MS} ms, so the crash proved nothing (raise CRASH_LOAD_MS)`,
    );
  }

  server = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_LOG_LEVEL: 'warn', ...env });
  try {
    const found = new Set<string>();
    let after: string | null = null;
    do {
      const res = await fetch(`${server.url}/organization/api/v1/aliases?limit=500${after ? `&after=${after}` : ''}`, { headers });
      const page = (await res.json()) as { after: string | null; entries: { id: string }[] };
      page.entries.forEach((e) => found.add(e.id));
      after = page.after;
    } while (after);
    const lostAliases = [...ackAliases].filter((id) => !found.has(id)).length;
    const node = (await (await fetch(`${server.url}/api/v1/partner/nodes?secret=${partner_secret}`, { headers })).json()) as {
      data: { entries: { usd_earned: string }[] };
    };
    const foundEvents = Number(node.data.entries[0]!.usd_earned); // each event earned exactly 1
    const lostEvents = Math.max(0, ackEvents - foundEvents);
    console.log(
      `${label.padEnd(10)} aliases: acknowledged ${ackAliases.size}, found ${ackAliases.size - lostAliases}, lost ${lostAliases} · events: acknowledged ${ackEvents}, found ${Math.min(foundEvents, ackEvents)} (+${Math.max(0, foundEvents - ackEvents)} committed but unacknowledged), lost ${lostEvents}`,
    );
    return lostAliases + lostEvents;
  } finally {
    await server.stop();
  }
}

async function main() {
  buildIfNeeded({ quiet: true });
  let lost = await trial('PGlite', {}, {});
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const pgLost = await withFreshDatabase(base, 'triad_crash', (url) => {
      const env = { DATABASE_URL: url, TRIAD_SECRET_KEY: SECRET_KEY };
      return trial('PostgreSQL', env, env);
    });
    lost += pgLost;
  } else {
    console.log('PostgreSQL: skipped (set TEST_DATABASE_URL)');
  }
  removeDataDirs();
  console.log(lost === 0 ? 'crash test: nothing acknowledged was lost' : `crash test: ${lost} acknowledged writes LOST`);
  process.exit(lost === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
