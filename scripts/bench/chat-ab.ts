// `npm run bench:chat-ab -- <another checkout>`: this tree's chat path against another tree's, in one
// run, so that the machine's slow and fast moments fall on both alike (on this project's 2-core VM the
// same code's rate swings ±20 % between runs minutes apart: docs/benchmarks.md). Both servers run at
// once on the same fake model server (answering at once), each on a fresh embedded database, with the
// node flags of npm start; the other checkout must be built (`npm ci && npm run build` there).
//
//  - One client, back to back, in turns of 50 requests: straight to the model server, through a bare
//    node:http proxy (./bare-proxy.mjs: the floor of any Node proxy on this machine), through the other
//    tree, through this one; whole and streamed. Overhead = through it − straight, p50 and p99.
//  - Ten clients: rounds of 2 s a tree and scenario (whole, streamed, triad-guide), the order of the two
//    trees swapped every round; the rates of each, this tree's rate over the other's round by round, and
//    what a completion took of each server's main thread (µs, from /proc: steadier than a rate here).
//
// BENCH_SAMPLES: requests a row (600); BENCH_ROUNDS: rounds of 10 clients (8; 0: none).
// BENCH_UPSTREAM_LATENCY_MS: the one-client rows' model server waits that long before it answers (0: at
// once; 20 reads the overhead as bench:chat's first table does, the rounds of ten stay at once). BENCH_THIS_FLAGS and
// BENCH_OTHER_FLAGS add node flags to one side (the same checkout on both sides compares flags alone:
// `BENCH_THIS_FLAGS=--max-semi-space-size=32 npm run bench:chat-ab -- .`). Prints tables; asserts nothing.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { withCpuUse } from '../lib/cpu-time';
import { load, percentile, timedPost } from '../lib/load';
import { freePort, removeDataDirs, type RunningServer } from '../lib/server';
import { startTreeServer } from '../lib/tree-server';

const HERE = path.resolve(import.meta.dirname, '../..');
const OTHER = process.argv[2] ? path.resolve(process.argv[2]) : '';
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const LATENCY_MS = Number(process.env.BENCH_UPSTREAM_LATENCY_MS ?? 0);
const BLOCK = 50;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

type Tree = { name: string; root: string; flags: string[]; server?: RunningServer; auth?: Record<string, string> };
/** Node flags for one side, beyond npm start's (BENCH_THIS_FLAGS, BENCH_OTHER_FLAGS: `--max-semi-space-size=32`, say). */
const flagsOf = (name: string) => (process.env[name] ?? '').split(' ').filter(Boolean);

const call = (url: string, body: string, headers: Record<string, string>) => timedPost(agent, url, body, headers);

/** SAMPLES requests to each target in turns of BLOCK: [p50, p99] ms of each. */
async function interleaved(targets: { url: string; headers: Record<string, string> }[], body: string): Promise<[number, number][]> {
  for (let i = 0; i < 50; i++) for (const t of targets) await call(t.url, body, t.headers); // warm-up
  const samples = targets.map(() => [] as number[]);
  for (let done = 0; done < SAMPLES; done += BLOCK)
    for (const [k, t] of targets.entries())
      for (let i = 0; i < Math.min(BLOCK, SAMPLES - done); i++) samples[k]!.push(await call(t.url, body, t.headers));
  return samples.map((s) => [percentile(s, 50), percentile(s, 99)]);
}

async function main() {
  if (!OTHER || !fs.existsSync(path.join(OTHER, '.next/triad/server.js')))
    throw new Error('usage: npm run bench:chat-ab -- <another checkout, built with npm run build>');
  buildIfNeeded();
  const upstreamPort = await freePort();
  const upstream = spawn(
    process.execPath,
    [path.join(HERE, 'scripts/fake-upstream.mjs'), '--port', String(upstreamPort), '--latency-ms', String(LATENCY_MS)],
    {
      stdio: 'ignore',
    },
  );
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/v1`;
  const barePort = await freePort();
  const bare = spawn(
    process.execPath,
    [path.join(HERE, 'scripts/bench/bare-proxy.mjs'), '--port', String(barePort), '--upstream', upstreamUrl],
    {
      stdio: 'ignore',
    },
  );
  const trees: Tree[] = [
    { name: `other (${OTHER})`, root: OTHER, flags: flagsOf('BENCH_OTHER_FLAGS') },
    { name: 'this checkout', root: HERE, flags: flagsOf('BENCH_THIS_FLAGS') },
  ];
  try {
    await new Promise((r) => setTimeout(r, 300));
    for (const t of trees) Object.assign(t, await startTreeServer(t.root, upstreamUrl, t.flags));
    const chatUrl = (t: Tree) => `${t.server!.url}/api/v1/chat/completions`;
    const ask = { model: 'fake-instant', messages: [{ role: 'user', content: 'ping' }] };
    const bothWays = (a: object) =>
      [
        ['whole', JSON.stringify(a)],
        ['streamed', JSON.stringify({ ...a, stream: true })],
      ] as const;
    const scenarios = bothWays(ask);
    // The one-client rows' model: fake-fixed waits LATENCY_MS (fake-upstream.mjs), fake-instant never.
    const oneClient = bothWays({ ...ask, model: LATENCY_MS ? 'fake-fixed' : 'fake-instant' });

    console.log(`\nbench:chat-ab — node ${process.version}, embedded PGlite, the model server answering at once\n`);
    console.log(
      `One client, ${SAMPLES} requests a row in turns of ${BLOCK}${LATENCY_MS ? `, the model server answering after ${LATENCY_MS} ms` : ''}:\n`,
    );
    console.log(
      '| scenario | straight p50 / p99 ms | bare proxy: overhead p50 / p99 ms | other: overhead p50 / p99 ms | this: overhead p50 / p99 ms |',
    );
    console.log('|---|---|---|---|---|');
    for (const [name, body] of oneClient) {
      const targets = [
        { url: `${upstreamUrl}/chat/completions`, headers: {} },
        { url: `http://127.0.0.1:${barePort}/`, headers: {} },
        ...trees.map((t) => ({ url: chatUrl(t), headers: t.auth! })),
      ];
      const [straight, floor, other, mine] = await interleaved(targets, body);
      const over = (r: [number, number]) => `${(r[0] - straight![0]).toFixed(2)} / ${(r[1] - straight![1]).toFixed(2)}`;
      console.log(
        `| ${name} | ${straight![0].toFixed(2)} / ${straight![1].toFixed(2)} | ${over(floor!)} | ${over(other!)} | ${over(mine!)} |`,
      );
    }

    if (ROUNDS <= 0) return;
    const loads = [
      ...scenarios,
      ['triad-guide', JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 })],
    ] as const;
    const rates = new Map<string, number[][]>(loads.map(([name]) => [name, [[], []]]));
    // What a completion took of each server's main thread in its rounds (µs; /proc, Linux only).
    const cpu = new Map<string, number[][]>(loads.map(([name]) => [name, [[], []]]));
    for (const t of trees)
      await load('warm-up', {
        url: chatUrl(t),
        method: 'POST',
        headers: { ...t.auth!, 'content-type': 'application/json' },
        body: loads[0][1],
        seconds: 1,
      });
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, body] of loads) {
        const order = round % 2 ? [1, 0] : [0, 1];
        for (const k of order) {
          const t = trees[k]!;
          const { result: r, use } = await withCpuUse(t.server!.proc.pid, () =>
            load(name, {
              url: chatUrl(t),
              method: 'POST',
              headers: { ...t.auth!, 'content-type': 'application/json' },
              body,
              seconds: 2,
            }),
          );
          if (r.non2xx || r.errors) throw new Error(`${t.name}, ${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
          rates.get(name)![k]!.push(r.rps);
          if (use) cpu.get(name)![k]!.push(use.mainUs);
        }
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`\nTen clients, ${ROUNDS} rounds of 2 s a tree and scenario, the two trees in turns:\n`);
    console.log(
      '| scenario | other req/s (mean) | this req/s (mean) | this / other, round by round: median (min – max) | main thread µs a completion, other / this (medians) |',
    );
    console.log('|---|---|---|---|---|');
    for (const [name, [other, mine]] of rates) {
      const ratios = mine!.map((m, i) => m / other![i]!);
      const pct = (x: number) => `${Math.round(100 * x)} %`;
      const [otherCpu, myCpu] = cpu.get(name)!.map((xs) => (xs.length ? percentile(xs, 50).toFixed(1) : '–'));
      console.log(
        `| ${name} | ${Math.round(mean(other!))} | ${Math.round(mean(mine!))} | ${pct(percentile(ratios, 50))} (${pct(Math.min(...ratios))} – ${pct(Math.max(...ratios))}) | ${otherCpu} / ${myCpu} |`,
      );
    }
  } finally {
    for (const t of trees) await t.server?.stop();
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
