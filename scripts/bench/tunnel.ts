// `npm run bench:tunnel` (design §14): a node agent's tunnel against the same model server as a direct
// provider, in one run on one Triad; and Triad's resident memory with IDLE idle tunnels connected.
// Prints tables; asserts nothing. Goals (issue "Nodes that dial in"): median +0.5 ms or less over the
// direct provider; under 50 KB of Triad's memory per idle tunnel.
//
// Latency: one client, back to back, in turns of BLOCK requests to each model (`direct`: the HTTP
// provider; `fake-instant`: the same fake model server behind the agent), whole and streamed; then whole
// with a coding agent's prompt (BENCH_LONG_PROMPT_CHARS, 200 000 characters: 35 000–52 000 tokens), whose
// tokens Triad counts to check the node's usage (BENCH_LONG_SAMPLES requests a row, 100).
// Memory: IDLE WebSockets that say hello as agents do (one node each: each becomes a tunnel provider),
// Triad's VmRSS before and after, each after a quiet moment (the server collects its heap when quiet).
// On the embedded database, or on PostgreSQL with TEST_DATABASE_URL (a fresh database of its own).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { type FreshDatabase, freshDatabase } from '../../lib/db/fresh-database';
import { runAdmin, unlimitedKey } from '../lib/admin-cli';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { percentile, timedRequest } from '../lib/load';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../lib/server';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 1000);
const LONG_CHARS = Number(process.env.BENCH_LONG_PROMPT_CHARS ?? 200_000);
const LONG_SAMPLES = Number(process.env.BENCH_LONG_SAMPLES ?? 100);
const IDLE = Number(process.env.BENCH_IDLE_TUNNELS ?? 1000);
const BLOCK = 50;
const root = path.resolve(import.meta.dirname, '../..');
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request over the kept-alive socket: its time and status (scripts/lib/load.ts). */
const timed = (url: string, body: string, headers: Record<string, string>) => timedRequest(keepAlive, url, body, headers);

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** Words as a prompt of source code and prose reads, `chars` long; `seed` makes each request's its own. */
const longPrompt = (chars: number, seed: number) => {
  const words = ['function', 'return', 'const', 'the', 'value', 'of', 'request', '=>', '{', '}', 'await', 'if', 'error', 'files'];
  let text = `Request ${seed}. `;
  for (let i = 0; text.length < chars; i++) text += words[(i * 7 + seed) % words.length] + (i % 11 === 10 ? '\n' : ' ');
  return text;
};

async function latency(server: RunningServer, auth: Record<string, string>, stream: boolean, prompt?: number, samplesARow = SAMPLES) {
  const url = `${server.url}/api/v1/chat/completions`;
  let n = 0;
  const content = () => (prompt ? longPrompt(prompt, n++) : 'ping');
  const body = (model: string) => JSON.stringify({ model, stream, messages: [{ role: 'user', content: content() }] });
  const models = ['direct', 'fake-instant'];
  const samples = models.map(() => [] as number[]);
  for (let i = 0; i < 50; i++) for (const m of models) await timed(url, body(m), auth); // warm-up
  for (let done = 0; done < samplesARow; done += BLOCK) {
    for (const [k, m] of models.entries()) {
      for (let i = 0; i < BLOCK; i++) {
        const r = await timed(url, body(m), auth);
        if (r.status !== 200) throw new Error(`${m} answered ${r.status}`);
        samples[k]!.push(r.total);
      }
    }
  }
  return samples.map((s) => ({ p50: percentile(s, 50), p99: percentile(s, 99) }));
}

async function main() {
  buildIfNeeded();
  const upstreamPort = await freePort();
  const upstream: ChildProcess = spawn(process.execPath, [path.join(root, 'scripts/fake-upstream.mjs'), '--port', String(upstreamPort)], {
    stdio: 'ignore',
  });
  let server: RunningServer | null = null;
  let agent: ChildProcess | null = null;
  let database: FreshDatabase | null = null;
  const sockets: WebSocket[] = [];
  try {
    await sleep(500);
    const upstreamUrl = `http://127.0.0.1:${upstreamPort}/v1`;
    const dataDir = freshDataDir();
    // On PostgreSQL with TEST_DATABASE_URL (a fleet of many nodes' set-up): then the database's memory is
    // not in Triad's process, and RSS is what the tunnels themselves cost.
    database = process.env.TEST_DATABASE_URL ? await freshDatabase(process.env.TEST_DATABASE_URL, 'triad_bench_tunnel') : null;
    const store: Record<string, string> = database ? { DATABASE_URL: database.url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex') } : {};
    server = await startServer(dataDir, {
      ...store,
      TRIAD_DEMO: '0',
      TRIAD_LOG_LEVEL: 'warn',
      TRIAD_TUNNEL_MAX_PER_PARTNER: String(2 * IDLE + 10),
    });
    const env = { TRIAD_DATA_DIR: dataDir, ...store };
    const { orgId, apiKey } = await unlimitedKey(env, 'Bench');
    const { partner_secret } = await runAdmin(env, ['partner', 'create', '--org', orgId, '--name', 'Bench partner']);
    await runAdmin(env, [
      'provider',
      'add',
      '--name',
      'direct',
      '--base-url',
      upstreamUrl,
      '--renames',
      'direct=fake-instant',
      '--models',
      'direct',
    ]);
    agent = spawn(
      process.execPath,
      [path.join(root, '.next/triad/triad-node.mjs'), '--server', server.url, '--node', 'bench-node', '--upstream', upstreamUrl],
      { env: { PATH: process.env.PATH, TRIAD_PARTNER_SECRET: partner_secret } as unknown as NodeJS.ProcessEnv, stdio: 'ignore' },
    );
    const auth = { authorization: `Bearer ${apiKey}` };
    for (let i = 0; ; i++) {
      const r = await timed(
        `${server.url}/api/v1/chat/completions`,
        JSON.stringify({ model: 'fake-instant', messages: [{ role: 'user', content: 'x' }] }),
        auth,
      );
      if (r.status === 200) break;
      if (i > 100) throw new Error('the agent did not connect');
      await sleep(100);
    }
    const whole = await latency(server, auth, false);
    const streamed = await latency(server, auth, true);
    const long = await latency(server, auth, false, LONG_CHARS, LONG_SAMPLES);
    console.log(
      `\nbench:tunnel — instant model server, 1 client, ${SAMPLES} requests a row in turns of ${BLOCK}, node ${process.version}, ${database ? 'PostgreSQL' : 'embedded PGlite'}\n`,
    );
    console.log('| scenario | p50 ms | p99 ms |');
    console.log('|---|---|---|');
    const rows: [string, { p50: number; p99: number }][] = [
      ['whole, direct provider (HTTP)', whole[0]!],
      ['whole, through the node agent (tunnel)', whole[1]!],
      ['streamed, direct provider (HTTP)', streamed[0]!],
      ['streamed, through the node agent (tunnel)', streamed[1]!],
      [`whole, a prompt of ${LONG_CHARS} characters, direct provider (HTTP)`, long[0]!],
      [`whole, a prompt of ${LONG_CHARS} characters, through the node agent (its usage checked)`, long[1]!],
    ];
    for (const [name, r] of rows) console.log(`| ${name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`);
    console.log(
      `\ntunnel overhead at the median: whole +${(whole[1]!.p50 - whole[0]!.p50).toFixed(2)} ms, streamed +${(streamed[1]!.p50 - streamed[0]!.p50).toFixed(2)} ms (goal: +0.5 ms or less); with the long prompt +${(long[1]!.p50 - long[0]!.p50).toFixed(2)} ms`,
    );

    // Memory: IDLE WebSockets that say hello as agents do (each a tunnel: a node, a provider row and
    // the pool's view of it), then stay idle (ws answers Triad's pings).
    const pid = server.proc.pid!;
    // The server collects its heap when quiet (lib/server/idle-gc.ts: 10 s after its last request, once
    // it did some work): each figure is read after that collection, RSS before the request that reads the heap.
    const figures = async () => {
      await fetch(`${server!.url}/api/health`);
      await sleep(12_500);
      const rss = rssKb(pid);
      const text = await (await fetch(`${server!.url}/api/metrics`)).text();
      const read = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? NaN) / 1024;
      return {
        rss,
        heap: read('triad_process_heap_used_bytes'),
        committed: read('triad_process_heap_total_bytes'),
        external: read('triad_process_external_bytes'),
      };
    };
    const before = await figures();
    const url = `${server.url.replace('http', 'ws')}/api/v1/node/connect`;
    /** Connects `n` more idle tunnels (nodes from `from` on); resolves with the seconds it took. */
    const connect = async (from: number, n: number) => {
      const started = performance.now();
      for (let i = from; i < from + n; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, from + n - i) }, (_, j) => {
            const ws = new WebSocket(url, { headers: { authorization: `Bearer ${partner_secret}` }, perMessageDeflate: false });
            sockets.push(ws);
            return new Promise<void>((resolve, reject) => {
              ws.on('open', () =>
                ws.send(JSON.stringify({ t: 'hello', node: `idle-${i + j}`, models: ['idle-model'], max_concurrency: 4, window: 262144 })),
              );
              ws.once('message', () => resolve());
              ws.on('error', reject);
              ws.on('close', (code) => reject(new Error(`tunnel closed: ${code}`)));
            });
          }),
        );
      }
      return (performance.now() - started) / 1000;
    };
    // Twice: the first thousand also grows the process to what handling many hellos at once needs;
    // the second shows what a tunnel holds once it has.
    const connectS = await connect(0, IDLE);
    const after = await figures();
    const secondS = await connect(IDLE, IDLE);
    const second = await figures();
    const per = (a: number, b: number) => `${((b - a) / IDLE).toFixed(1)} KB`;
    console.log(`\n| idle tunnels | RSS | V8 heap used | V8 heap committed | external | time |`);
    console.log('|---|---|---|---|---|---|');
    const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
    const row = (name: string, f: typeof before, time: string) =>
      console.log(`| ${name} | ${mb(f.rss)} | ${mb(f.heap)} | ${mb(f.committed)} | ${mb(f.external)} | ${time} |`);
    const perRow = (name: string, a: typeof before, b: typeof before, note: string) =>
      console.log(
        `| ${name} | ${per(a.rss, b.rss)} | ${per(a.heap, b.heap)} | ${per(a.committed, b.committed)} | ${per(a.external, b.external)} | ${note} |`,
      );
    row('before', before, '');
    row(`${IDLE} tunnels`, after, `${connectS.toFixed(1)} s`);
    row(`${2 * IDLE} tunnels`, second, `${secondS.toFixed(1)} s more`);
    perRow(`per tunnel, first ${IDLE}`, before, after, 'goal: under 50 KB RSS');
    perRow(`per tunnel, the ${IDLE} more`, after, second, '');
  } finally {
    for (const ws of sockets) ws.terminate();
    agent?.kill('SIGKILL');
    await server?.stop();
    upstream.kill('SIGKILL');
    await database?.drop();
    removeDataDirs();
  }
}

await main();
