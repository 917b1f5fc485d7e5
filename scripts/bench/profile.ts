// `npm run bench:profile [-- whole|streamed|guide]`: where a completion's CPU time goes in the server.
// Starts this checkout's built server with V8's sampling profiler (--cpu-prof, 100 µs samples) on a
// fresh embedded database, serving the fake model server answering at once; sends BENCH_SECONDS (10) of
// ten clients; stops the server (the profile is written at its exit) and prints the server's CPU time
// per completion, split by where the samples fell (this project's code by file, its packages, Node's
// internals by area, garbage collection), the embedded database all told (what its statements ran,
// wherever the places above put it), and the costliest functions by self time. The .cpuprofile
// is kept (BENCH_PROFILE_DIR, else a temporary directory) for Chrome's DevTools or speedscope.
// Asserts nothing; 127.0.0.1 only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { load } from '../lib/load';
import { freePort, removeDataDirs } from '../lib/server';
import { startTreeServer } from '../lib/tree-server';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROOT = path.resolve(import.meta.dirname, '../..');
const scenario = process.argv[2] ?? 'whole';
const BODIES: Record<string, object> = {
  whole: { model: 'fake-instant', messages: [{ role: 'user', content: 'ping' }] },
  streamed: { model: 'fake-instant', messages: [{ role: 'user', content: 'ping' }], stream: true },
  guide: { model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
};

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

/** Where a sample's function lives: this project's file, a package, an area of Node, or V8's own. */
function place(n: Node): string {
  const { url, functionName } = n.callFrame;
  if (!url) return `(${functionName.replace(/[()]/g, '') || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  if (url.startsWith('node:'))
    return `node ${
      url
        .slice(5)
        .replace(/^internal\//, '')
        .split('/')[0]
    }`;
  if (url.includes('/.next/triad/')) return 'Triad server bundle';
  if (url.includes('/.next/')) return 'Next app chunks';
  return url.replace(/^file:\/\//, '');
}

/** PGlite's function that runs every statement (the WebAssembly's protocol loop). */
const DATABASE_RUN = 'execProtocolRawSync';

/** The samples' time (µs) that fell in `name` or anything it called. */
function underFunction(profile: Profile, self: Map<number, number>, name: string): number {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const named = new Set(profile.nodes.filter((n) => n.callFrame.functionName === name).map((n) => n.id));
  let total = 0;
  for (const [id, us] of self) {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (named.has(at)) {
        total += us;
        break;
      }
    }
  }
  return total;
}

function summarise(profile: Profile, completions: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    if (n.callFrame.functionName === '(idle)') continue;
    busy += us;
    places.set(place(n), (places.get(place(n)) ?? 0) + us);
    const where = n.callFrame.url ? `${n.callFrame.url.split('/').slice(-1)[0]}:${n.callFrame.lineNumber + 1}` : '';
    const fn = `${n.callFrame.functionName || '(anonymous)'} ${where}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const per = (us: number) => (us / completions).toFixed(1).padStart(7);
  console.log(`\n${completions} completions; the server busy ${(busy / 1e6).toFixed(2)} s of CPU: ${per(busy)} µs a completion\n`);
  console.log('µs/completion  where');
  for (const [k, us] of [...places].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${per(us)}        ${k}`);
  // The places above split the embedded database between its WebAssembly, its package and the functions
  // they call: all of it is what runs under its statements (inclusive time).
  console.log(
    `\n${per(underFunction(profile, self, DATABASE_RUN))}        the embedded database, all told (what runs under ${DATABASE_RUN})`,
  );
  console.log('\nµs/completion  function (self time)');
  for (const [k, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${per(us)}        ${k}`);
}

async function main() {
  if (!BODIES[scenario]) throw new Error(`usage: npm run bench:profile -- ${Object.keys(BODIES).join('|')}`);
  buildIfNeeded();
  const dir = process.env.BENCH_PROFILE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'triad-profile-'));
  const upstreamPort = await freePort();
  const upstream = spawn(
    process.execPath,
    [path.join(ROOT, 'scripts/fake-upstream.mjs'), '--port', String(upstreamPort), '--latency-ms', '0'],
    {
      stdio: 'ignore',
    },
  );
  try {
    await new Promise((r) => setTimeout(r, 300));
    const { server, auth } = await startTreeServer(ROOT, `http://127.0.0.1:${upstreamPort}/v1`, [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--cpu-prof-interval=100',
    ]);
    const request = {
      url: `${server.url}/api/v1/chat/completions`,
      method: 'POST' as const,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(BODIES[scenario]),
    };
    await load('warm-up', { ...request, seconds: 2 });
    // The profile covers the whole process: only the samples taken during the load are summed below.
    const began = Date.now();
    const r = await load(scenario, { ...request, seconds: SECONDS });
    const ended = Date.now();
    await server.stop();
    const exited = Date.now();
    const file = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => path.join(dir, f))
      .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
    const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile & { startTime: number; endTime: number };
    // Keep the samples taken during the load only (the profile's clock is in µs from its own origin;
    // its end is the process's exit, a moment after the load ended).
    const exitAt = profile.endTime;
    const from = exitAt - (exited - began) * 1000;
    const to = exitAt - (exited - ended) * 1000;
    let t = profile.startTime;
    const keep = { samples: [] as number[], timeDeltas: [] as number[] };
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i] ?? 0;
      if (t >= from && t <= to) {
        keep.samples.push(id);
        keep.timeDeltas.push(profile.timeDeltas[i] ?? 0);
      }
    });
    const completions = Math.round(r.rps * SECONDS);
    console.log(`\nbench:profile — ${scenario}, 10 clients for ${SECONDS} s: ${r.rps} req/s (node ${process.version}); profile ${file}`);
    summarise({ ...profile, ...keep }, completions);
  } finally {
    upstream.kill();
    removeDataDirs();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
