// `npm run bench:footprint`: how much code a completion runs, in the server and in the bare proxy (the
// floor, ./bare-proxy.mjs). A request that comes after a quiet spell — every request, when the model
// server takes seconds — finds the caches cold, and then what it costs goes with the code and data it
// touches more than with the CPU time a busy server spends on it (docs/benchmarks.md, thirty-fifth
// section). Both run with V8's precise coverage (./coverage-preload.mjs); after BENCH_WARM (2 000)
// requests from one client, the counts of BENCH_REQUESTS (1 000) more are taken, whole and streamed,
// from the fake model server answering at once: the functions run at least once every two requests, the
// function calls a request, and both by place (this project's bundle, undici, zod, Node's parts, the
// embedded database's driver). BENCH_FUNCTIONS=N lists Triad's N most-called functions outside Node's
// own parts, a request's calls each. Asserts nothing; 127.0.0.1 only.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { timedPost } from '../lib/load';
import { freePort, removeDataDirs } from '../lib/server';
import { startTreeServer } from '../lib/tree-server';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PRELOAD = path.join(import.meta.dirname, 'coverage-preload.mjs');
const WARM = Number(process.env.BENCH_WARM ?? 2000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
/** BENCH_FUNCTIONS=N: also list the N most-called functions of Triad's own places (its bundle and packages). */
const LIST = Number(process.env.BENCH_FUNCTIONS ?? 0);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

type Coverage = { url: string; functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[] }[];

const call = (url: string, body: string, headers: Record<string, string>) => timedPost(agent, url, body, headers);

/** Waits for a file the preload writes (at most 30 s). */
async function appeared(file: string): Promise<void> {
  for (let i = 0; i < 600 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 50));
  if (!fs.existsSync(file)) throw new Error(`no ${file}`);
}

/** The coverage of `n` requests to `url` in the process `proc` (its counts started before them, taken after). */
async function counted(proc: ChildProcess, url: string, body: string, headers: Record<string, string>, n: number): Promise<Coverage> {
  const base = path.join(os.tmpdir(), `triad-footprint-${proc.pid}`);
  fs.rmSync(`${base}.json`, { force: true });
  if (!fs.existsSync(`${base}.started`)) {
    proc.kill('SIGUSR2');
    await appeared(`${base}.started`);
  } else {
    proc.kill('SIGUSR2'); // taken (and reset) before the requests counted
    await appeared(`${base}.json`);
    fs.rmSync(`${base}.json`);
  }
  for (let i = 0; i < n; i++) await call(url, body, headers);
  proc.kill('SIGUSR2');
  await appeared(`${base}.json`);
  return JSON.parse(fs.readFileSync(`${base}.json`, 'utf8')) as Coverage;
}

/** Where a script is, for the table. */
function place(url: string): string {
  if (url.includes('/.next/triad/')) return "Triad's bundle";
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) {
    const m = url.slice(5);
    if (/^(_http|http|net|internal\/(http|stream_base|net))/.test(m)) return "Node's HTTP and sockets";
    if (/^(internal\/)?streams?/.test(m)) return "Node's streams";
    if (/async_hooks|async_context|task_queues|timers|promises/.test(m)) return "Node's async, timers, microtasks";
    if (/event_target|abort_controller|webidl|^events/.test(m)) return "Node's events, AbortSignal";
    return "Node's other parts";
  }
  return path.basename(url) || '(other)';
}

/** How many times a function ran; 0 for a script's own top level, which runs once as it is loaded. */
const callsOf = (f: Coverage[number]['functions'][number]) =>
  f.functionName === '' && f.ranges[0]!.startOffset === 0 ? 0 : f.ranges[0]!.count;

function summary(cov: Coverage, n: number) {
  let functions = 0;
  let calls = 0;
  const by = new Map<string, { functions: number; calls: number }>();
  for (const script of cov) {
    const where = place(script.url);
    for (const f of script.functions) {
      const count = callsOf(f);
      if (!count) continue;
      const p = by.get(where) ?? { functions: 0, calls: 0 };
      if (count >= n / 2) {
        functions++;
        p.functions++;
      }
      calls += count;
      p.calls += count;
      by.set(where, p);
    }
  }
  return { functions, calls: calls / n, by };
}

/** The `top` most-called functions outside Node's own parts, with their calls a request. */
function mostCalled(cov: Coverage, n: number, top: number): string[] {
  const rows: { name: string; calls: number }[] = [];
  for (const script of cov) {
    const where = place(script.url);
    if (where.startsWith("Node's")) continue;
    for (const f of script.functions) {
      const count = callsOf(f);
      if (count < n / 2) continue;
      rows.push({ name: `${where}: ${f.functionName || '(anonymous)'}@${f.ranges[0]!.startOffset}`, calls: count / n });
    }
  }
  return rows
    .sort((a, b) => b.calls - a.calls)
    .slice(0, top)
    .map((r) => `${r.calls.toFixed(1).padStart(6)}  ${r.name}`);
}

async function main() {
  buildIfNeeded();
  const upstreamPort = await freePort();
  const upstream = spawn(
    process.execPath,
    [path.join(ROOT, 'scripts/fake-upstream.mjs'), '--port', String(upstreamPort), '--latency-ms', '0'],
    {
      stdio: 'ignore',
    },
  );
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/v1`;
  const barePort = await freePort();
  const bare = spawn(
    process.execPath,
    ['--import', PRELOAD, path.join(ROOT, 'scripts/bench/bare-proxy.mjs'), '--port', String(barePort), '--upstream', upstreamUrl],
    { stdio: 'ignore' },
  );
  const { server, auth } = await startTreeServer(ROOT, upstreamUrl, ['--import', PRELOAD]);
  try {
    console.log(`\nbench:footprint — node ${process.version}, embedded PGlite, one client, the model server answering at once`);
    console.log(`(${WARM} requests to warm up, then ${REQUESTS} counted; "functions": run at least once every two requests)\n`);
    for (const stream of [false, true]) {
      const body = JSON.stringify({ model: 'fake-instant', messages: [{ role: 'user', content: 'ping' }], stream });
      const triadUrl = `${server.url}/api/v1/chat/completions`;
      const bareUrl = `http://127.0.0.1:${barePort}/`;
      for (let i = 0; i < WARM; i++) {
        await call(triadUrl, body, auth);
        await call(bareUrl, body, {});
      }
      const triadCoverage = await counted(server.proc, triadUrl, body, auth, REQUESTS);
      const triad = summary(triadCoverage, REQUESTS);
      const floor = summary(await counted(bare, bareUrl, body, {}, REQUESTS), REQUESTS);
      console.log(`${stream ? 'Streamed' : 'Whole'} replies:\n`);
      console.log('| where | Triad: functions | Triad: calls a request | bare proxy: functions | bare proxy: calls a request |');
      console.log('|---|---|---|---|---|');
      const places = [...new Set([...triad.by.keys(), ...floor.by.keys()])].sort(
        (a, b) => (triad.by.get(b)?.calls ?? 0) - (triad.by.get(a)?.calls ?? 0),
      );
      for (const p of places) {
        const t = triad.by.get(p);
        const f = floor.by.get(p);
        if ((t?.calls ?? 0) + (f?.calls ?? 0) < REQUESTS / 10) continue; // under one call in ten requests
        console.log(
          `| ${p} | ${t?.functions ?? 0} | ${((t?.calls ?? 0) / REQUESTS).toFixed(1)} | ${f?.functions ?? 0} | ${((f?.calls ?? 0) / REQUESTS).toFixed(1)} |`,
        );
      }
      console.log(
        `| **all** | **${triad.functions}** | **${triad.calls.toFixed(0)}** | **${floor.functions}** | **${floor.calls.toFixed(0)}** |\n`,
      );
      if (LIST)
        console.log(
          `Triad's ${LIST} most-called functions of its own (calls a request):\n${mostCalled(triadCoverage, REQUESTS, LIST).join('\n')}\n`,
        );
    }
  } finally {
    await server.stop();
    upstream.kill();
    bare.kill();
    removeDataDirs();
    agent.destroy();
    for (const p of [server.proc.pid, bare.pid])
      for (const ext of ['started', 'json']) fs.rmSync(path.join(os.tmpdir(), `triad-footprint-${p}.${ext}`), { force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
