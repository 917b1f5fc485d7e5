// `npm run bench:memory`: where an idle server's memory goes, and whether cutting it made requests
// slower. For each set-up it starts the built server (`npm start`'s flags) and, IDLE_S seconds after it
// says ready, reads the process's resident memory (VmRSS), V8's heap and what lies outside it
// (`external`: the WebAssembly memory of the embedded database is there), then times sequential
// requests (a statistics read, an alias retrieve, a whole chat reply) and prints p50/p99. Set-ups: the
// embedded database on its first start (the demo is set up), the same directory started again, and,
// with TEST_DATABASE_URL, PostgreSQL. Then, on the embedded database, LOAD_S seconds of 10 clients
// (the node list, the alias list and chat completions, whole and streamed; rate limits raised) and the
// resident memory at their end and again once the server has been quiet long enough to collect (10 s)
// and IDLE_S more — BENCH_LOAD_SPELLS such spells one after the other (1 by default), to read whether what
// stays after load keeps growing with the requests served; then the dashboard's pages, visited once (served
// past Next), and the memory once quiet again; then a request only Next answers (/api/ping), and the memory once quiet again (Next's runtime loaded). Each reading says where the resident memory is, by kind (/proc/PID/smaps).
// Asserts nothing; 127.0.0.1 only, bounded in time.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshDatabase } from '../../lib/db/fresh-database';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { unlimitedKey } from '../lib/admin-cli';
import { load, percentile } from '../lib/load';
import { freshDataDir, removeDataDirs, type RunningServer, startServer } from '../lib/server';

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 20);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const LOAD_S = Number(process.env.BENCH_LOAD_S ?? 20);
const SPELLS = Number(process.env.BENCH_LOAD_SPELLS ?? 1);

const status = (pid: number, field: string) => {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

/**
 * Resident memory (MB) by kind, from /proc/PID/smaps: files mapped (the node binary and libraries), the
 * malloc heap (`[heap]`), WebAssembly memory (the embedded database's: V8 reserves 8 GiB of address space
 * for a memory, the part in use readable and writable, the rest a guard mapping right after it), and the
 * rest of the anonymous memory (V8's heap and code, the threads' stacks and malloc arenas).
 */
function residentByKind(pid: number) {
  const maps: { start: number; end: number; name: string; kb: number }[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) maps.push({ start: Number.parseInt(head[1]!, 16), end: Number.parseInt(head[2]!, 16), name: head[3]!, kb: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && maps.length) maps.at(-1)!.kb += Number(rss[1]);
  }
  const kb = { files: 0, mallocHeap: 0, wasm: 0, otherAnon: 0 };
  maps.forEach((m, i) => {
    const guard = maps[i + 1];
    const wasm = !m.name && !!guard && !guard.name && guard.start === m.end && guard.end - guard.start >= 4 * 2 ** 30;
    kb[m.name.startsWith('/') ? 'files' : m.name === '[heap]' ? 'mallocHeap' : wasm ? 'wasm' : 'otherAnon'] += m.kb;
  });
  const mb = (n: number) => Math.round(n / 1024);
  return { files: mb(kb.files), mallocHeap: mb(kb.mallocHeap), wasm: mb(kb.wasm), otherAnon: mb(kb.otherAnon) };
}
type Kinds = ReturnType<typeof residentByKind>;

async function metric(server: RunningServer, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/api/metrics`)).text();
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Math.round(Number(m[1]) / 2 ** 20) : NaN;
}

type Row = {
  setup: string;
  rss: number;
  heap: number;
  external: number;
  kinds: Kinds;
  timings: Record<string, { p50: number; p99: number }>;
};

async function measure(setup: string, server: RunningServer): Promise<Row> {
  await sleep(IDLE_S * 1000);
  const pid = server.proc.pid!;
  const rss = status(pid, 'VmRSS');
  const kinds = residentByKind(pid);
  const heap = await metric(server, 'triad_process_heap_used_bytes');
  const external = await metric(server, 'triad_process_external_bytes');
  const demo = JSON.parse(fs.readFileSync(`${server.dataDir}/demo-credentials.json`, 'utf8')) as Record<string, string>;
  const org = { authorization: `Bearer ${demo.org_token}` };
  const alias = (
    (await (await fetch(`${server.url}/organization/api/v1/aliases`, { headers: org })).json()) as { entries: { id: string }[] }
  ).entries[0]!.id;
  const calls: Record<string, () => Promise<Response>> = {
    'GET /api/v1/partner/nodes': () => fetch(`${server.url}/api/v1/partner/nodes?secret=${demo.partner_secret}`, { headers: org }),
    'GET alias by id (owner)': () => fetch(`${server.url}/organization/api/v1/alias/${alias}`, { headers: org }),
    'POST chat (triad-guide, whole)': () =>
      fetch(`${server.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'triad-guide', max_tokens: 30, messages: [{ role: 'user', content: 'What is an alias?' }] }),
      }),
  };
  const timings: Row['timings'] = {};
  for (const [name, call] of Object.entries(calls)) {
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      const res = await call();
      await res.arrayBuffer();
      if (res.status === 429)
        await sleep(1000); // the demo key's own rate: wait, do not count
      else ms.push(performance.now() - started);
    }
    timings[name] = { p50: percentile(ms, 50), p99: percentile(ms, 99) };
  }
  return { setup, rss, heap, external, kinds, timings };
}

/**
 * Resident memory (MB) at the end of LOAD_S seconds of mixed load from 10 clients, and once quiet
 * again: the node list (3 clients) and the alias list (3), and chat completions of the built-in guide,
 * whole (2) and streamed (2), with a key of its own without a rate limit (their usage, latency and
 * request-log rows written as for any completion).
 */
async function afterLoad(server: RunningServer, apiKey: string) {
  const demo = JSON.parse(fs.readFileSync(`${server.dataDir}/demo-credentials.json`, 'utf8')) as Record<string, string>;
  const headers = { authorization: `Bearer ${demo.org_token}` };
  const chat = (stream: boolean) =>
    load(stream ? 'chat, streamed' : 'chat', {
      url: `${server.url}/api/v1/chat/completions`,
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'triad-guide', max_tokens: 30, stream, messages: [{ role: 'user', content: 'What is an alias?' }] }),
      connections: 2,
      seconds: LOAD_S,
    });
  const all = await Promise.all([
    load('nodes', { url: `${server.url}/api/v1/partner/nodes?secret=${demo.partner_secret}`, headers, connections: 3, seconds: LOAD_S }),
    load('alias', { url: `${server.url}/organization/api/v1/aliases`, headers, connections: 3, seconds: LOAD_S }),
    chat(false),
    chat(true),
  ]);
  const loaded = status(server.proc.pid!, 'VmRSS');
  await sleep((10 + IDLE_S) * 1000);
  const quiet = status(server.proc.pid!, 'VmRSS');
  const kinds = residentByKind(server.proc.pid!);
  const heap = await metric(server, 'triad_process_heap_used_bytes');
  const sum = (f: (r: (typeof all)[number]) => number) => all.reduce((n, r) => n + f(r), 0);
  return { loaded, quiet, kinds, heap, served: Math.round(sum((r) => r.rps) * LOAD_S), non2xx: sum((r) => r.non2xx) };
}

/**
 * The dashboard visited once (the load above is the API's only): its prerendered pages as a browser fetches
 * them — each document (two nodes' pages and an unknown page's 404 among them), its RSC payload (a
 * navigation to it) and every static file of the build — which the server sends past Next
 * (lib/server/prerendered.ts), and the resident memory once quiet again; then a request only Next answers
 * (/api/ping: its runtime is loaded at that first one), and the memory once quiet.
 */
async function afterPages(server: RunningServer) {
  const pages = [
    ...['/', '/stats', '/stats/demo-node-001', '/stats/demo-node-002', '/aliases', '/playground', '/usage', '/keys'],
    ...['/partners', '/requests', '/audit', '/docs', '/no-such-page'],
  ];
  const fetched = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${url}`, { headers });
    await res.arrayBuffer();
    if (res.status !== (url.startsWith('/no-such-page') ? 404 : 200)) throw new Error(`${url}: ${res.status}`);
  };
  const started = performance.now();
  await fetched(pages[0]!);
  const firstMs = performance.now() - started;
  for (const page of pages.slice(1)) await fetched(page);
  const { computeCacheBustingSearchParam } = await import('next/dist/shared/lib/router/utils/cache-busting-search-param.js');
  const rscQuery = await computeCacheBustingSearchParam(undefined, undefined, undefined, '/');
  for (const page of pages.slice(0, -1)) await fetched(`${page}?_rsc=${rscQuery}`, { rsc: '1', 'next-url': '/' });
  const staticDir = path.join(process.cwd(), '.next', 'static');
  for (const f of fs.readdirSync(staticDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()))
    await fetched(`/_next/static/${path.relative(staticDir, path.join(f.parentPath, f.name)).split(path.sep).join('/')}`, {
      'accept-encoding': 'gzip',
    });
  await sleep((10 + IDLE_S) * 1000);
  const quiet = status(server.proc.pid!, 'VmRSS');
  const kinds = residentByKind(server.proc.pid!);
  const nextStarted = performance.now();
  await fetched('/api/ping');
  const nextMs = performance.now() - nextStarted;
  await sleep((10 + IDLE_S) * 1000);
  return { firstMs, quiet, kinds, nextMs, nextQuiet: status(server.proc.pid!, 'VmRSS'), nextKinds: residentByKind(server.proc.pid!) };
}

async function main() {
  buildIfNeeded();
  const quiet = { TRIAD_LOG_LEVEL: 'warn', TRIAD_GUIDE_DELAY_MS: '0' };
  const rows: Row[] = [];
  const dataDir = freshDataDir();
  let server = await startServer(dataDir, quiet);
  rows.push(await measure('embedded, first start (demo set up)', server));
  await server.stop();
  server = await startServer(dataDir, {
    ...quiet,
    TRIAD_STATS_RATE_PER_S: '1000000',
    TRIAD_ADDRESS_RATE_PER_S: '1000000',
    TRIAD_LINK_RATE_PER_S: '1000000',
  });
  rows.push(await measure('embedded, started again', server));
  const { apiKey } = await unlimitedKey({ TRIAD_DATA_DIR: server.dataDir }, 'Memory bench');
  const spells = [];
  for (let i = 0; i < SPELLS; i++) spells.push(await afterLoad(server, apiKey));
  const visited = await afterPages(server);
  await server.stop();

  if (process.env.TEST_DATABASE_URL) {
    const db = await freshDatabase(process.env.TEST_DATABASE_URL, 'triad_bench_memory');
    try {
      server = await startServer(freshDataDir(), { ...quiet, DATABASE_URL: db.url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex') });
      rows.push(await measure('PostgreSQL', server));
      await server.stop();
    } finally {
      await db.drop();
    }
  }
  removeDataDirs();

  console.log(`\nIdle memory ${IDLE_S} s after "ready" (MB), then ${REQUESTS} sequential requests each (ms):\n`);
  console.log(
    '| set-up | resident | V8 heap used | external (incl. WebAssembly) | resident: files mapped / malloc heap / WebAssembly memory / other anonymous |',
  );
  console.log('|---|---|---|---|---|');
  const byKind = (k: Kinds) => `${k.files} / ${k.mallocHeap} / ${k.wasm} / ${k.otherAnon}`;
  for (const r of rows) console.log(`| ${r.setup} | ${r.rss} | ${r.heap} | ${r.external} | ${byKind(r.kinds)} |`);
  let served = 0;
  for (const [i, loaded] of spells.entries()) {
    served += loaded.served;
    const head = i ? `Spell ${i + 1}: ` : '\nEmbedded, started again, after its requests: ';
    console.log(
      `${head}${LOAD_S} s of 10 clients, mixed (${loaded.served} requests, ${loaded.non2xx} not 2xx${i ? `; ${served} since the start` : ''}): ` +
        `${loaded.loaded} MB resident at the end, ${loaded.quiet} MB ${10 + IDLE_S} s later (V8 heap used ${loaded.heap}; ` +
        `files mapped / malloc heap / WebAssembly memory / other anonymous: ${byKind(loaded.kinds)})`,
    );
  }
  console.log(
    `Then the dashboard's pages, their RSC payloads and the build's static files, once each (the first page ${Math.round(visited.firstMs)} ms): ` +
      `${visited.quiet} MB ${10 + IDLE_S} s later (${byKind(visited.kinds)})`,
  );
  console.log(
    `Then a request only Next answers (GET /api/ping: its runtime loaded at this first one, ${Math.round(visited.nextMs)} ms): ` +
      `${visited.nextQuiet} MB ${10 + IDLE_S} s later (${byKind(visited.nextKinds)})`,
  );
  console.log('\n| set-up | request | p50 ms | p99 ms |');
  console.log('|---|---|---|---|');
  for (const r of rows) {
    for (const [name, t] of Object.entries(r.timings)) console.log(`| ${r.setup} | ${name} | ${t.p50.toFixed(2)} | ${t.p99.toFixed(2)} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
