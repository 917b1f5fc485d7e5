// `npm run bench:chat-gc`: what a chat completion leaves to V8's garbage collector. One client calls a
// server started with --trace-gc-nvp back to back (the fake model server answering at once, whole and
// streamed, and triad-guide); for each scenario it prints the latency, the bytes allocated and the bytes
// promoted to the old generation per completion (what survived a young-generation collection), and the
// collections' pauses. Objects a request leaves reachable past its end show up as promoted bytes, and
// every scavenge then copies them: that set the p99 of `npm run bench:chat` (docs/benchmarks.md).
//
// BENCH_ROOT=<another checkout, built>: measure that tree's server instead (A/B in one session).
// BENCH_SAMPLES: completions a scenario (3000). BENCH_SITES=promoted: also where the promoted objects were
// allocated (V8's sampling heap profiler through the inspector, objects a scavenge kept); BENCH_SITES=all:
// where everything was allocated.
// Prints a table; asserts nothing.
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import WebSocket from 'ws';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { percentile, timedPost } from '../lib/load';
import { freePort, removeDataDirs } from '../lib/server';
import { startTreeServer } from '../lib/tree-server';

const OWN_ROOT = path.resolve(import.meta.dirname, '../..');
const ROOT = path.resolve(process.env.BENCH_ROOT ?? OWN_ROOT);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 3000);
const SITES = process.env.BENCH_SITES === 'promoted' || process.env.BENCH_SITES === 'all' ? process.env.BENCH_SITES : null;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** The numbers of --trace-gc-nvp's scavenge lines (`gc=s`) in a piece of the server's output. */
function scavenges(output: string) {
  const lines = output.split('\n').filter((l) => l.includes('gc=s'));
  const num = (l: string, key: string) => Number(new RegExp(`\\b${key}=([0-9.]+)`).exec(l)?.[1] ?? 0);
  const sum = (key: string) => lines.reduce((s, l) => s + num(l, key), 0);
  return { count: lines.length, allocated: sum('allocated'), promoted: sum('promoted'), pauses: lines.map((l) => num(l, 'pause')) };
}

/** The server's inspector, for the sampling heap profiler. */
async function inspector(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const webSocketDebuggerUrl = targets[0]!.webSocketDebuggerUrl;
  const ws = new WebSocket(webSocketDebuggerUrl);
  await new Promise((r) => ws.once('open', r));
  let id = 0;
  const waiting = new Map<number, (v: unknown) => void>();
  ws.on('message', (d) => {
    const m = JSON.parse(String(d)) as { id?: number; result?: unknown };
    if (m.id) waiting.get(m.id)?.(m.result);
  });
  const send = (method: string, params: object) =>
    new Promise<unknown>((r) => {
      waiting.set(++id, r);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

type ProfileNode = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: ProfileNode[] };
/** The allocation sites of the sampled objects, most bytes first, per completion. */
function sites(head: ProfileNode, completions: number, top = 15): string[] {
  const bytes = new Map<string, number>();
  const walk = (node: ProfileNode) => {
    const f = node.callFrame;
    const where = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|\.next)\//, '$1/')}:${f.lineNumber + 1}`;
    if (node.selfSize) bytes.set(where, (bytes.get(where) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c);
  };
  walk(head);
  return [...bytes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([where, b]) => `${(b / completions).toFixed(0).padStart(7)} B  ${where}`);
}

async function main() {
  if (ROOT === OWN_ROOT) buildIfNeeded();
  const upstreamPort = await freePort();
  const upstream = spawn(
    process.execPath,
    [path.join(OWN_ROOT, 'scripts/fake-upstream.mjs'), '--port', String(upstreamPort), '--latency-ms', '0'],
    {
      stdio: 'ignore',
    },
  );
  const inspectPort = SITES ? await freePort() : 0;
  const flags = ['--trace-gc-nvp', ...(SITES ? [`--inspect=127.0.0.1:${inspectPort}`] : [])];
  const { server, auth } = await startTreeServer(ROOT, `http://127.0.0.1:${upstreamPort}/v1`, flags);
  try {
    const url = `${server.url}/api/v1/chat/completions`;
    const ask = { messages: [{ role: 'user', content: 'ping' }] };
    const scenarios: [string, object][] = [
      ['whole, instant model server', { ...ask, model: 'fake-instant' }],
      ['streamed, instant model server', { ...ask, model: 'fake-instant', stream: true }],
      ['whole, triad-guide', { ...ask, model: 'triad-guide', max_tokens: 5 }],
    ];
    const prof = SITES ? await inspector(inspectPort) : undefined;
    const rows: string[] = [];
    const siteReports: string[] = [];
    for (const [name, request] of scenarios) {
      const body = JSON.stringify(request);
      for (let i = 0; i < 500; i++) await timedPost(agent, url, body, auth); // warm-up
      await new Promise((r) => setTimeout(r, 1500)); // the usage written behind, settled
      await prof?.send('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMinorGC: SITES === 'all',
        includeObjectsCollectedByMajorGC: true,
      });
      const mark = server.output().length;
      const latency: number[] = [];
      for (let i = 0; i < SAMPLES; i++) latency.push(await timedPost(agent, url, body, auth));
      await new Promise((r) => setTimeout(r, 100)); // the last trace lines
      const gc = scavenges(server.output().slice(mark));
      const pauses = gc.pauses;
      rows.push(
        `| ${name} | ${percentile(latency, 50).toFixed(2)} | ${percentile(latency, 99).toFixed(2)} | ${gc.count} | ` +
          `${(gc.allocated / SAMPLES / 1024).toFixed(1)} | ${(gc.promoted / SAMPLES).toFixed(0)} | ` +
          `${pauses.length ? percentile(pauses, 50).toFixed(1) : '-'} | ${pauses.length ? Math.max(...pauses).toFixed(1) : '-'} |`,
      );
      if (prof) {
        const { profile } = (await prof.send('HeapProfiler.stopSampling', {})) as { profile: { head: ProfileNode } };
        siteReports.push(
          `\n${name}: where the ${SITES === 'all' ? '' : 'promoted '}objects were allocated (sampled), per completion\n${sites(profile.head, SAMPLES).join('\n')}`,
        );
      }
    }
    prof?.close();
    console.log(
      `\nbench:chat-gc — ${ROOT === OWN_ROOT ? 'this checkout' : ROOT}, 1 client, ${SAMPLES} completions a scenario, node ${process.version}\n`,
    );
    console.log(
      '| scenario | p50 ms | p99 ms | scavenges | allocated KB/completion | promoted B/completion | scavenge pause p50 ms | max ms |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    for (const s of siteReports) console.log(s);
  } finally {
    await server.stop();
    upstream.kill();
    removeDataDirs();
    agent.destroy();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
