// `npm run bench:overload`: twice the capacity. A server that serves at most CAPACITY chat completions
// at once (TRIAD_MAX_CONCURRENT) gets 2 × CAPACITY clients, each streaming triad-guide replies (about a
// second each) back to back for BENCH_SECONDS. Prints what was served and how fast, what was turned
// away (503, Retry-After) and how fast, any other failure, and the server's resident memory each second.
// Asserts nothing; 127.0.0.1 only, bounded in time.
import fs from 'node:fs';
import { unlimitedKey } from '../lib/admin-cli';
import { percentile } from '../lib/load';
import { freshDataDir, removeDataDirs, startServer } from '../lib/server';
import { buildIfNeeded } from '../build-if-needed.mjs';

const CAPACITY = Number(process.env.BENCH_CAPACITY ?? 20);
const CLIENTS = 2 * CAPACITY;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

async function main() {
  buildIfNeeded();
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_LOG_LEVEL: 'warn',
    TRIAD_GUIDE_DELAY_MS: '20',
    TRIAD_MAX_CONCURRENT: String(CAPACITY),
    TRIAD_MAX_CONCURRENT_PER_KEY: String(CLIENTS),
  });
  try {
    const { apiKey } = await unlimitedKey({ TRIAD_DATA_DIR: dataDir }, 'Overload');
    const body = JSON.stringify({
      model: 'triad-guide',
      messages: [{ role: 'user', content: 'How do I run the tests?' }],
      stream: true,
      max_tokens: 50,
    });
    const served: number[] = []; // ms to the end of a whole stream
    const firstByte: number[] = [];
    const refused: number[] = []; // ms to the 503
    const other = new Map<string, number>();
    const memory: number[] = [];
    const until = Date.now() + SECONDS * 1000;

    const client = async () => {
      while (Date.now() < until) {
        const started = performance.now();
        try {
          const res = await fetch(`${server.url}/api/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body,
          });
          if (res.status === 503) {
            refused.push(performance.now() - started);
            await res.text();
            await new Promise((r) => setTimeout(r, 50)); // a client that backs off a little (Retry-After says 1 s)
            continue;
          }
          if (res.status !== 200) {
            other.set(String(res.status), (other.get(String(res.status)) ?? 0) + 1);
            await res.text();
            continue;
          }
          firstByte.push(performance.now() - started);
          const text = await res.text();
          if (!text.includes('data: [DONE]')) other.set('stream without [DONE]', (other.get('stream without [DONE]') ?? 0) + 1);
          else served.push(performance.now() - started);
        } catch (e) {
          other.set((e as Error).message, (other.get((e as Error).message) ?? 0) + 1);
        }
      }
    };
    const sampler = setInterval(() => memory.push(rssMb(server.proc.pid!)), 1000);
    const before = rssMb(server.proc.pid!);
    await Promise.all(Array.from({ length: CLIENTS }, client));
    clearInterval(sampler);

    console.log(`\nbench:overload — capacity ${CAPACITY} completions at once, ${CLIENTS} clients, ${SECONDS} s, node ${process.version}\n`);
    console.log('| outcome | count | p50 ms | p99 ms |');
    console.log('|---|---|---|---|');
    console.log(
      `| served: first byte | ${firstByte.length} | ${percentile(firstByte, 50).toFixed(1)} | ${percentile(firstByte, 99).toFixed(1)} |`,
    );
    console.log(
      `| served: whole stream | ${served.length} | ${percentile(served, 50).toFixed(1)} | ${percentile(served, 99).toFixed(1)} |`,
    );
    console.log(
      `| turned away (503) | ${refused.length} | ${percentile(refused, 50).toFixed(1)} | ${percentile(refused, 99).toFixed(1)} |`,
    );
    console.log(`\nother outcomes: ${other.size ? JSON.stringify(Object.fromEntries(other)) : 'none'}`);
    console.log(`resident memory: ${before} MB before; each second under load: ${memory.join(', ')} MB`);
  } finally {
    await server.stop();
    removeDataDirs();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
