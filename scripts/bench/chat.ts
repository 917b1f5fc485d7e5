// `npm run bench:chat`: chat completions through Triad against the same fixed-latency upstream called
// directly, non-streaming and streaming, in one run; and throughput with 10 clients against the trivial
// route of the same server. Prints tables; asserts nothing.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { runAdmin } from '../../e2e/support/fixtures';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { load, printTable } from '../lib/load';
import { freshDataDir, removeDataDirs, startServer } from '../lib/server';

const LATENCY_MS = Number(process.env.BENCH_UPSTREAM_LATENCY_MS ?? 20);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const UPSTREAM_PORT = 3295;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request over a kept-alive socket: time to the first body byte and to the end, in ms. */
function timed(url: string, body: string, headers: Record<string, string>, method = 'POST'): Promise<{ ttfb: number; total: number; status: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const head = method === 'GET' ? headers : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers };
    const req = http.request(url, { method, agent, headers: head }, (res) => {
      let ttfb = 0;
      res.on('data', () => (ttfb ||= performance.now() - start));
      res.on('end', () => resolve({ ttfb, total: performance.now() - start, status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : body);
  });
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function series(url: string, body: object, headers: Record<string, string> = {}, method = 'POST') {
  const text = JSON.stringify(body);
  for (let i = 0; i < 20; i++) await timed(url, text, headers, method); // warm-up
  const ttfb: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const r = await timed(url, text, headers, method);
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
    ttfb.push(r.ttfb);
    total.push(r.total);
  }
  return { ttfb50: pct(ttfb, 50), ttfb99: pct(ttfb, 99), p50: pct(total, 50), p99: pct(total, 99) };
}

async function main() {
  buildIfNeeded();
  const upstream: ChildProcess = spawn(process.execPath, [path.join(import.meta.dirname, '../fake-upstream.mjs'), '--port', String(UPSTREAM_PORT), '--latency-ms', String(LATENCY_MS)], { stdio: 'ignore' });
  const dataDir = freshDataDir();
  try {
    await new Promise((r) => setTimeout(r, 500));
    const upstreamUrl = `http://127.0.0.1:${UPSTREAM_PORT}/v1`;
    const server = await startServer(dataDir, { TRIAD_UPSTREAM_URL: upstreamUrl, TRIAD_DEMO: '0', TRIAD_LOG_LEVEL: 'warn' });
    try {
      const { org_id } = await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['org', 'create', '--name', 'Bench']);
      const { api_key } = await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
      const auth = { authorization: `Bearer ${api_key}` };
      const ask = { model: 'fake-fixed', messages: [{ role: 'user', content: 'ping' }] };
      const streamAsk = { ...ask, stream: true };

      const instantAsk = { ...ask, model: 'fake-instant' };
      const rows = [
        ['non-streaming, direct to upstream', await series(`${upstreamUrl}/chat/completions`, ask)],
        ['non-streaming, through Triad', await series(`${server.url}/api/v1/chat/completions`, ask, auth)],
        ['streaming, direct to upstream', await series(`${upstreamUrl}/chat/completions`, streamAsk)],
        ['streaming, through Triad', await series(`${server.url}/api/v1/chat/completions`, streamAsk, auth)],
        ['instant upstream, direct', await series(`${upstreamUrl}/chat/completions`, instantAsk)],
        ['instant upstream, through Triad', await series(`${server.url}/api/v1/chat/completions`, instantAsk, auth)],
        ['trivial route of Triad (GET /api/ping)', await series(`${server.url}/api/ping`, {}, {}, 'GET')],
      ] as const;
      console.log(`\nbench:chat — upstream latency ${LATENCY_MS} ms, 1 client, ${SAMPLES} requests a row, embedded PGlite, node ${process.version}\n`);
      console.log('| scenario | TTFB p50 ms | TTFB p99 ms | p50 ms | p99 ms |');
      console.log('|---|---|---|---|---|');
      for (const [name, r] of rows) console.log(`| ${name} | ${r.ttfb50.toFixed(2)} | ${r.ttfb99.toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} |`);
      for (const [label, direct, via] of [
        ['non-streaming', rows[0][1], rows[1][1]],
        ['streaming', rows[2][1], rows[3][1]],
        ['instant upstream', rows[4][1], rows[5][1]],
      ] as const) {
        console.log(`overhead, ${label}: p50 ${(via.p50 - direct.p50).toFixed(2)} ms, p99 ${(via.p99 - direct.p99).toFixed(2)} ms (targets ≤ 3 ms and ≤ 10 ms)`);
      }

      // Throughput with 10 clients: an upstream that answers at once, against the trivial route.
      const headers = { ...auth, 'content-type': 'application/json' };
      const instant = JSON.stringify({ model: 'fake-instant', messages: [{ role: 'user', content: 'ping' }] });
      for (const url of [`${server.url}/api/ping`]) await load('warm-up', { url, seconds: 1 });
      const trivial = await load('trivial route (GET /api/ping)', { url: `${server.url}/api/ping`, seconds: SECONDS });
      const chat = await load('chat, non-streaming (instant upstream)', { url: `${server.url}/api/v1/chat/completions`, method: 'POST', headers, body: instant, seconds: SECONDS });
      const chatStream = await load('chat, streaming (instant upstream)', {
        url: `${server.url}/api/v1/chat/completions`,
        method: 'POST',
        headers,
        body: JSON.stringify({ ...JSON.parse(instant), stream: true }),
        seconds: SECONDS,
      });
      const guide = await load('chat, triad-guide (no upstream)', {
        url: `${server.url}/api/v1/chat/completions`,
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
        seconds: SECONDS,
      });
      console.log(`\n10 clients, ${SECONDS} s a scenario:\n`);
      printTable([trivial, chat, chatStream, guide], trivial);
      console.log(`\nchat req/s: ${Math.round((100 * chat.rps) / trivial.rps)} % of the trivial route's (target ≥ 70 %)`);
    } finally {
      await server.stop();
    }
  } finally {
    upstream.kill();
    removeDataDirs();
    agent.destroy();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
