// `npm run bench:targets`: what the costliest request targets within Node's 16 KB header limit cost the
// server, next to a plain request: one client at a time, so each latency is one request's cost.
// The server refuses too many parameters, too many values of one key and undecodable paths before
// Next parses them (lib/http/request-guard.ts); the largest target it lets through is measured too.
// Prints a table; asserts nothing.
import { load, printTable, type LoadResult } from '../lib/load';
import { freshDataDir, removeDataDirs, startServer } from '../lib/server';
import { buildIfNeeded } from '../build-if-needed.mjs';

const amount = Number(process.env.BENCH_REQUESTS ?? 200);

async function main() {
  buildIfNeeded();
  const server = await startServer(freshDataDir(), { TRIAD_DEMO: '0', TRIAD_LOG_LEVEL: 'warn' });
  try {
    const within = `secret=s&${Array.from({ length: 100 }, (_, i) => `partner_node_id[]=n${i}`).join('&')}&${Array.from({ length: 27 }, (_, i) => `k${i}=v`).join('&')}`;
    const targets: [string, string][] = [
      ['plain (GET /api/health)', '/api/health'],
      ['7 900 repeated keys (a&a&…), 16 KB', `/api/health?${Array(7900).fill('a').join('&')}`],
      ['2 000 distinct keys, 16 KB', `/api/health?${Array.from({ length: 2000 }, (_, i) => `k${i}=1`).join('&')}`],
      ['undecodable path', '/organization/api/v1/alias/%E0%A4%A'],
      ['largest let through: 128 params, 100 repeats', `/api/health?${within}`],
    ];
    for (const [, path] of targets) await load('warm-up', { url: server.url + path, connections: 1, amount: 5 });
    const rows: LoadResult[] = [];
    for (const [name, path] of targets) rows.push(await load(name, { url: server.url + path, connections: 1, amount }));
    console.log(`\nbench:targets — ${amount} requests each, one client (node ${process.version})\n`);
    printTable(rows, rows[0]);
  } finally {
    await server.stop();
    removeDataDirs();
  }
}

void main();
