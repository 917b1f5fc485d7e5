// `npm run bench:chat`: chat completions through Triad against the same fixed-latency upstream called
// directly, non-streaming and streaming, in one run (and against one answering at once, both ways: the
// issue #37 set-up); and throughput with 10 clients against the trivial
// route of the same server, and against a bare Node proxy (./bare-proxy.mjs: the floor any Node gateway
// stands on, in its own process), with issue #37's goals read against it (the rates also in BENCH_ROUNDS
// rounds of BENCH_ROUND_S seconds, Triad and the bare proxy in turns, the median of their ratios, and what a
// completion took of each one's CPU in those rounds: ../lib/cpu-time.ts). Prints tables; asserts nothing. On PGlite, or on PostgreSQL with BENCH_DATABASE_URL;
// budgets in Redis with BENCH_REDIS_URL (else in the database). A key with a budget (design §17: a reservation
// before each request, a settlement after) is measured beside the same server's key without one.
//
// Latency: the samples of the direct call, of Triad, and of a second Triad with TRIAD_DIRECT_ROUTES=0
// (the chat route served through Next's generic router, for comparison) are taken in turns of BLOCK
// back-to-back requests (as one client calling one server), so that this machine's slow moments fall
// on all three alike, after BENCH_WARM_S (10) seconds of ten clients on each (the steady state, not
// a fresh server's first seconds while V8 still compiles). Beside them, what this machine charges a small
// piece of work after a pause as long as the model server's latency (../lib/pause-cost.ts): a VM's factor,
// which the latency rows pay on every step of a path.
//
// Now and then: one client sending a request every BENCH_SPACED_S (3) seconds, BENCH_SPACED (12) times,
// to each of the three in turn (the model server answering at once) — what a person at a chat sees,
// whom the back-to-back samples do not show: whatever a server does after a few quiet seconds (a
// cache's entry expired, a view due for a reload) falls in the path of such a client's every request.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { runAdmin, unlimitedKey } from '../lib/admin-cli';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { withFreshDatabase } from '../../lib/db/fresh-database';
import { type CpuUse, withCpuUse } from '../lib/cpu-time';
import { load, type LoadResult, percentile, printTable, timedRequest } from '../lib/load';
import { pauseCost } from '../lib/pause-cost';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../lib/server';

const LATENCY_MS = Number(process.env.BENCH_UPSTREAM_LATENCY_MS ?? 20);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
// Rounds of ten clients against the bare proxy in turns, and their length (s).
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_S = Number(process.env.BENCH_ROUND_S ?? 3);
const BLOCK = 50;
// Seconds of ten clients each target gets before the latency samples (half whole, half streamed).
const WARM_S = Number(process.env.BENCH_WARM_S ?? 10);
// BENCH_DATABASE_URL (a PostgreSQL server): run both servers on fresh databases there instead of PGlite.
const PG_BASE = process.env.BENCH_DATABASE_URL;
const REDIS = process.env.BENCH_REDIS_URL;
const SECRET_KEY = 'b3c4'.repeat(16);
const SPACED = Number(process.env.BENCH_SPACED ?? 12);
const SPACED_S = Number(process.env.BENCH_SPACED_S ?? 3);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request over a kept-alive socket: time to the first body byte and to the end, in ms. */
const timed = (url: string, body: string, headers: Record<string, string>, method: 'GET' | 'POST' = 'POST') =>
  timedRequest(agent, url, body, headers, method);

type Target = { url: string; headers?: Record<string, string>; method?: 'GET' | 'POST'; model?: string };
type Stats = { ttfb50: number; ttfb99: number; p50: number; p99: number };

/** SAMPLES requests to each target, in turns of BLOCK back-to-back requests. */
async function interleaved(targets: Target[], body: object): Promise<Stats[]> {
  const text = JSON.stringify(body);
  const call = async (t: Target) => {
    const r = await timed(t.url, t.model ? JSON.stringify({ ...body, model: t.model }) : text, t.headers ?? {}, t.method);
    if (r.status !== 200) throw new Error(`${t.url} answered ${r.status}`);
    return r;
  };
  for (let i = 0; i < 20; i++) for (const t of targets) await call(t); // warm-up
  const samples = targets.map(() => ({ ttfb: [] as number[], total: [] as number[] }));
  for (let done = 0; done < SAMPLES; done += BLOCK) {
    for (const [k, t] of targets.entries()) {
      for (let i = 0; i < Math.min(BLOCK, SAMPLES - done); i++) {
        const r = await call(t);
        samples[k]!.ttfb.push(r.ttfb);
        samples[k]!.total.push(r.total);
      }
    }
  }
  return samples.map(({ ttfb, total }) => ({
    ttfb50: percentile(ttfb, 50),
    ttfb99: percentile(ttfb, 99),
    p50: percentile(total, 50),
    p99: percentile(total, 99),
  }));
}

/** A request every SPACED_S seconds to each target in turn, SPACED times: p50 and the slowest of each. */
async function nowAndThen(targets: { direct: Target; floor: Target; triad: Target }) {
  if (!SPACED) return;
  const body = JSON.stringify({ model: 'fake-instant', messages: [{ role: 'user', content: 'ping' }] });
  const names = { direct: 'direct to upstream', floor: 'through a bare Node proxy (the floor)', triad: 'through Triad' };
  const order = ['direct', 'floor', 'triad'] as const;
  const times = { direct: [] as number[], floor: [] as number[], triad: [] as number[] };
  for (let i = 0; i < SPACED; i++) {
    await new Promise((r) => setTimeout(r, SPACED_S * 1000));
    for (const k of order) times[k].push((await timed(targets[k].url, body, targets[k].headers ?? {})).total);
  }
  console.log(`\nnow and then: a request every ${SPACED_S} s, ${SPACED} to each in turn (the model server answering at once)\n`);
  console.log('| scenario | p50 ms | slowest ms |');
  console.log('|---|---|---|');
  for (const k of order) console.log(`| ${names[k]} | ${percentile(times[k], 50).toFixed(2)} | ${Math.max(...times[k]).toFixed(2)} |`);
  console.log(`Triad ${(percentile(times.triad, 50) - percentile(times.floor, 50)).toFixed(2)} ms over the bare proxy at the median`);
}

/**
 * Every target gets WARM_S seconds of ten clients (half whole, half streamed; the instant model server)
 * before any sample is taken: a server's first thousands of completions run while V8 still compiles its
 * code (the JavaScript's optimizing tiers, the embedded database's WebAssembly) on this 2-core machine's
 * other core, and the samples are to read the steady state of each — the bare proxy's and the model
 * server's alike. (A fresh server's first seconds are measured apart, docs/benchmarks.md.)
 */
async function warmUp(targets: Target[], body: object) {
  if (!WARM_S) return;
  for (const t of targets)
    for (const stream of [false, true]) {
      const r = await load('warm-up', {
        url: t.url,
        method: 'POST',
        headers: { ...t.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, ...(t.model ? { model: t.model } : {}), stream }),
        seconds: WARM_S / 2,
      });
      if (r.non2xx || r.errors || !r.rps) throw new Error(`warm-up of ${t.url} failed: ${JSON.stringify(r)}`);
    }
}

const spawnUpstream = (port: number) =>
  spawn(
    process.execPath,
    [path.join(import.meta.dirname, '../fake-upstream.mjs'), '--port', String(port), '--latency-ms', String(LATENCY_MS)],
    {
      stdio: 'ignore',
    },
  );

/**
 * Failover time: one of the three providers of `multi` is killed while one client calls back to
 * back; reported are the time from the kill to the first reply served by another provider, and the
 * slowest request around it. No request may fail.
 */
async function failover(server: RunningServer, auth: Record<string, string>) {
  const body = JSON.stringify({ model: 'multi', messages: [{ role: 'user', content: 'ping' }] });
  const victimPort = await freePort();
  const victim = spawnUpstream(victimPort);
  await new Promise((r) => setTimeout(r, 300));
  await runAdmin({ TRIAD_DATA_DIR: server.dataDir }, [
    'provider',
    'add',
    '--name',
    'multi-victim',
    '--base-url',
    `http://127.0.0.1:${victimPort}/v1`,
    '--renames',
    'multi=fake-fixed',
    '--weight',
    '100',
  ]);
  for (let i = 0; i < 20; i++) await timed(`${server.url}/api/v1/chat/completions`, body, auth); // it serves now (weight 100)
  const killed = performance.now();
  victim.kill('SIGKILL');
  let firstElsewhere = 0;
  let slowest = 0;
  let failed = 0;
  for (let i = 0; i < 50; i++) {
    const r = await timed(`${server.url}/api/v1/chat/completions`, body, auth);
    if (r.status !== 200) failed++;
    slowest = Math.max(slowest, r.total);
    firstElsewhere ||= performance.now() - killed;
  }
  console.log(
    `\nfailover: provider killed → first request served elsewhere ${firstElsewhere.toFixed(1)} ms (its request included; upstream latency ${LATENCY_MS} ms); slowest of the next 50 ${slowest.toFixed(1)} ms; failed ${failed}`,
  );
}

async function apiKey(dataDir: string, storage: Record<string, string>, extra: string[] = []) {
  const { apiKey: key } = await unlimitedKey({ TRIAD_DATA_DIR: dataDir, ...storage }, 'Bench', extra);
  return { authorization: `Bearer ${key}` };
}

async function main() {
  buildIfNeeded();
  if (!PG_BASE) return run({}, {});
  const pg = (url: string) => ({ DATABASE_URL: url, TRIAD_SECRET_KEY: SECRET_KEY });
  await withFreshDatabase(PG_BASE, 'triad_bench_chat', (a) =>
    withFreshDatabase(PG_BASE, 'triad_bench_chat_next', (b) => run(pg(a), pg(b))),
  );
}

/** The whole benchmark, with the storage settings of the server under test and of the one through Next's router. */
async function run(storage: Record<string, string>, nextStorage: Record<string, string>) {
  // Ports the system found free (not fixed ones: a run started just after another found the last one's
  // model server still on its port, answering with resets as it went).
  const upstreamPort = await freePort();
  const upstream: ChildProcess = spawnUpstream(upstreamPort);
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/v1`;
  const barePort = await freePort();
  const bare: ChildProcess = spawn(
    process.execPath,
    [path.join(import.meta.dirname, 'bare-proxy.mjs'), '--port', String(barePort), '--upstream', upstreamUrl],
    { stdio: 'ignore' },
  );
  const bareUrl = `http://127.0.0.1:${barePort}/`;
  const servers: RunningServer[] = [];
  try {
    await new Promise((r) => setTimeout(r, 500));
    const env = {
      TRIAD_UPSTREAM_URL: upstreamUrl,
      TRIAD_DEMO: '0',
      TRIAD_LOG_LEVEL: 'warn',
      ...(REDIS ? { REDIS_URL: REDIS, TRIAD_REDIS_PREFIX: `bench-${Date.now()}` } : {}),
    };
    const [dataDir, nextDataDir] = [freshDataDir(), freshDataDir()];
    const server = await startServer(dataDir, { ...env, ...storage });
    servers.push(server);
    const viaNext = await startServer(nextDataDir, { ...env, ...nextStorage, TRIAD_DIRECT_ROUTES: '0' });
    servers.push(viaNext);
    const auth = await apiKey(dataDir, storage);
    const nextAuth = await apiKey(nextDataDir, nextStorage);
    // Priced, so that a completion has a cost to reserve and settle; a budget it never reaches.
    await runAdmin({ TRIAD_DATA_DIR: dataDir, ...storage }, [
      'provider',
      'update',
      'default',
      '--price-prompt',
      '0.15',
      '--price-completion',
      '0.6',
    ]);
    const budgetAuth = await apiKey(dataDir, storage, ['--budget-usd', '1000000', '--budget-period', 'day']);
    // Three providers for one model (`multi`), on the same fake server as `default`: the only difference
    // between the two rows is routing among three.
    for (let i = 1; i <= 3; i++) {
      await runAdmin({ TRIAD_DATA_DIR: dataDir, ...storage }, [
        ...['provider', 'add', '--name', `multi-${i}`, '--base-url', upstreamUrl],
        ...['--renames', 'multi=fake-fixed,multi-instant=fake-instant', '--models', 'multi,multi-instant'],
      ]);
    }
    const targets = [
      { url: `${upstreamUrl}/chat/completions` },
      { url: `${server.url}/api/v1/chat/completions`, headers: auth },
      { url: `${viaNext.url}/api/v1/chat/completions`, headers: nextAuth },
      { url: `${server.url}/api/v1/chat/completions`, headers: auth, model: 'multi' },
      { url: `${server.url}/api/v1/chat/completions`, headers: budgetAuth },
      { url: bareUrl },
    ];
    const ask = { model: 'fake-fixed', messages: [{ role: 'user', content: 'ping' }] };
    // The same targets for the model server answering at once (`multi-instant` on the three providers).
    const instantTargets = targets.map((t) => (t.model ? { ...t, model: 'multi-instant' } : t));
    // The server under test last, so that the samples follow its warm-up at once: quiet for ten seconds
    // after a spell of load, it gives the memory back (lib/server/idle-gc.ts) and its next thousand or
    // two completions are slower at the tail again (measured apart, docs/benchmarks.md).
    const onServer = (t: Target) => t.url.startsWith(`${server.url}/`);
    await warmUp([...instantTargets.filter((t) => !onServer(t)), ...instantTargets.filter(onServer)], { ...ask, model: 'fake-instant' });

    const groups = [
      ['non-streaming', await interleaved(targets, ask)],
      ['streaming', await interleaved(targets, { ...ask, stream: true })],
      ['instant upstream', await interleaved(instantTargets, { ...ask, model: 'fake-instant' })],
      ['instant upstream, streaming', await interleaved(instantTargets, { ...ask, model: 'fake-instant', stream: true })],
    ] as const;
    const [trivial] = await interleaved([{ url: `${server.url}/api/ping`, method: 'GET' }], {});
    const paused = await pauseCost(LATENCY_MS);
    console.log(
      `\nbench:chat — upstream latency ${LATENCY_MS} ms, 1 client, ${SAMPLES} requests a row in turns of ${BLOCK}, ${PG_BASE ? 'PostgreSQL' : 'embedded PGlite'}, node ${process.version}\n`,
    );
    console.log('| scenario | TTFB p50 ms | TTFB p99 ms | p50 ms | p99 ms |');
    console.log('|---|---|---|---|---|');
    const row = (name: string, r: Stats) =>
      console.log(`| ${name} | ${r.ttfb50.toFixed(2)} | ${r.ttfb99.toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`);
    for (const [label, [direct, triad, next, multi, budgeted, floor]] of groups) {
      row(`${label}, direct to upstream`, direct!);
      row(`${label}, through a bare Node proxy (the floor)`, floor!);
      row(`${label}, through Triad`, triad!);
      row(`${label}, through Triad, a key with a budget (${REDIS ? 'Redis' : 'database'})`, budgeted!);
      row(`${label}, through Triad, three providers for the model (routing)`, multi!);
      row(`${label}, through Triad via Next's router (TRIAD_DIRECT_ROUTES=0)`, next!);
    }
    row('trivial route of Triad (GET /api/ping)', trivial!);
    console.log('');
    const over = (via: Stats, direct: Stats) => `p50 ${(via.p50 - direct.p50).toFixed(2)} ms, p99 ${(via.p99 - direct.p99).toFixed(2)} ms`;
    for (const [label, [direct, triad, next, multi, budgeted, floor]] of groups) {
      console.log(
        `overhead, ${label}: ${over(triad!, direct!)}; the bare proxy's ${over(floor!, direct!)}: Triad ${(triad!.p50 - floor!.p50).toFixed(2)} ms over it at the median (goal ≤ 0.3 ms, p99 overhead < 3 ms); via Next's router: ${over(next!, direct!)}`,
      );
      console.log(`  routing among three providers, ${label}: p50 ${(multi!.p50 - triad!.p50).toFixed(3)} ms over one (target ≤ 0.1 ms)`);
      console.log(
        `  a budget on the key (${REDIS ? 'Redis' : 'database'}), ${label}: p50 ${(budgeted!.p50 - triad!.p50).toFixed(3)} ms over none (goal ≤ 0.1 ms)`,
      );
    }
    console.log(
      `this machine after a pause (scripts/lib/pause-cost.ts): a stream chunk's JSON.parse ${paused.warmUs.toFixed(2)} µs back to back, ${paused.afterPauseUs.toFixed(2)} µs after ${LATENCY_MS} ms asleep (×${(paused.afterPauseUs / paused.warmUs).toFixed(0)}): what the ${LATENCY_MS} ms rows charge each step of a path`,
    );
    await nowAndThen({
      direct: { url: upstreamUrl + '/chat/completions' },
      floor: { url: bareUrl },
      triad: { url: `${server.url}/api/v1/chat/completions`, headers: auth },
    });
    await failover(server, auth);

    // Throughput with 10 clients: an upstream that answers at once, against the trivial route.
    const instant = JSON.stringify({ model: 'fake-instant', messages: [{ role: 'user', content: 'ping' }] });
    const chatLoad = (name: string, s: RunningServer, a: Record<string, string>, body: string, seconds = SECONDS) =>
      load(name, {
        url: `${s.url}/api/v1/chat/completions`,
        method: 'POST',
        headers: { ...a, 'content-type': 'application/json' },
        body,
        seconds,
      });
    const instantStream = JSON.stringify({ ...JSON.parse(instant), stream: true });
    const bareLoad = (name: string, body: string, seconds = SECONDS) =>
      load(name, { url: bareUrl, method: 'POST', headers: { 'content-type': 'application/json' }, body, seconds });
    await load('warm-up', { url: `${server.url}/api/ping`, seconds: 1 });
    await bareLoad('warm-up', instant);
    const rows = [
      await load('trivial route (GET /api/ping)', { url: `${server.url}/api/ping`, seconds: SECONDS }),
      await chatLoad('chat, non-streaming (instant upstream)', server, auth, instant),
      await chatLoad('chat, streaming (instant upstream)', server, auth, instantStream),
      await chatLoad(
        'chat, triad-guide (no upstream)',
        server,
        auth,
        JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
      ),
      await chatLoad("chat, non-streaming, via Next's router", viaNext, nextAuth, instant),
      await chatLoad("chat, streaming, via Next's router", viaNext, nextAuth, instantStream),
      await bareLoad('bare Node proxy, non-streaming (the floor)', instant),
      await bareLoad('bare Node proxy, streaming (the floor)', instantStream),
    ];
    console.log(`\n10 clients, ${SECONDS} s a scenario:\n`);
    printTable(rows, rows[0]);
    console.log(
      `\nchat req/s: ${Math.round((100 * rows[1]!.rps) / rows[0]!.rps)} % (non-streaming) and ${Math.round((100 * rows[2]!.rps) / rows[0]!.rps)} % (streaming) of the trivial route's (target ≥ 70 %)`,
    );
    console.log(
      `chat req/s against the bare Node proxy's, in the table: ${Math.round((100 * rows[1]!.rps) / rows[6]!.rps)} % (non-streaming) and ${Math.round((100 * rows[2]!.rps) / rows[7]!.rps)} % (streaming)`,
    );

    // The same against the floor in turns: the table's rows are a minute apart, and this machine's
    // speed moves more than that between them. ROUNDS rounds of ROUND_S seconds, Triad and the bare
    // proxy one after the other (which goes first swapped each round), after a second of each to warm up;
    // each round's ratio, and their median.
    console.log(`\n10 clients, Triad and the bare proxy in turns: ${ROUNDS} rounds of ${ROUND_S} s each\n`);
    console.log('| scenario | Triad req/s (median) | bare proxy req/s (median) | Triad / bare proxy, round by round | median |');
    console.log('|---|---|---|---|---|');
    // What a completion took of each one's CPU in those rounds (main thread, whole process; µs, medians).
    const cpuRows: string[] = [];
    const median = (xs: number[]) => percentile(xs, 50);
    for (const [label, body] of [
      ['whole', instant],
      ['streamed', instantStream],
    ] as const) {
      // Both warmed up first, a round's length each: the table's last rows were on other servers, and a
      // server quiet for 10 s has run its idle collection (lib/server/idle-gc.ts); its first seconds of load
      // after one are slower (with a second of warm-up the first round read 34–40 %, the others 45–61 %).
      // The rounds read the steady rate.
      await chatLoad(label, server, auth, body, ROUND_S);
      await bareLoad(label, body, ROUND_S);
      const ours: number[] = [];
      const floor: number[] = [];
      const ourCpu: CpuUse[] = [];
      const floorCpu: CpuUse[] = [];
      // A round's rate, and what its completions took of the server's CPU.
      const measured = async (pid: number | undefined, round: () => Promise<LoadResult>, rates: number[], cpu: CpuUse[]) => {
        const { result, use } = await withCpuUse(pid, round);
        rates.push(result.rps);
        if (use) cpu.push(use);
      };
      for (let r = 0; r < ROUNDS; r++) {
        const triadRound = () => measured(server.proc.pid, () => chatLoad(label, server, auth, body, ROUND_S), ours, ourCpu);
        const bareRound = () => measured(bare.pid, () => bareLoad(label, body, ROUND_S), floor, floorCpu);
        if (r % 2) {
          await bareRound();
          await triadRound();
        } else {
          await triadRound();
          await bareRound();
        }
      }
      const ratios = ours.map((x, i) => (100 * x) / floor[i]!);
      console.log(
        `| ${label} | ${Math.round(median(ours))} | ${Math.round(median(floor))} | ${ratios.map((x) => `${Math.round(x)} %`).join(', ')} | **${Math.round(median(ratios))} %** (goal ≥ 50 %) |`,
      );
      if (ourCpu.length && floorCpu.length) {
        const [tm, tp, fm, fp] = [
          median(ourCpu.map((c) => c.mainUs)),
          median(ourCpu.map((c) => c.processUs)),
          median(floorCpu.map((c) => c.mainUs)),
          median(floorCpu.map((c) => c.processUs)),
        ];
        cpuRows.push(
          `| ${label} | ${tm.toFixed(0)} / ${tp.toFixed(0)} | ${fm.toFixed(0)} / ${fp.toFixed(0)} | **${Math.round((100 * fm) / tm)} %** |`,
        );
      }
    }
    if (cpuRows.length) {
      // The rate a server's one thread allows is the inverse of its time a completion: the floor's main
      // thread over Triad's is the rate ratio the two would read with a core each to themselves.
      console.log('\nCPU a completion in those rounds (µs, medians; /proc): the main thread / the whole process\n');
      console.log("| scenario | Triad | bare proxy | the floor's main thread over Triad's |");
      console.log('|---|---|---|---|');
      for (const row of cpuRows) console.log(row);
    }
  } finally {
    for (const s of servers) await s.stop();
    upstream.kill();
    bare.kill();
    removeDataDirs();
    agent.destroy();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
