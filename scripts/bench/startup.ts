// `npm run bench:startup`: how soon a started server answers, and is ready (design §15; issue #37's
// goals: ready within 5 s of the process start on an existing data directory, within 10 s on a new one,
// the demo included). Starts the built server with npm start's flags, RUNS times each: on a new data
// directory (the demo is set up), then on that directory again; polls GET /api/health every 20 ms from
// the process start and prints when it first answered (503 while starting) and when it first said 200,
// and the resident memory then. Medians and the runs. Asserts nothing; 127.0.0.1 only.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildIfNeeded } from '../build-if-needed.mjs';
import { serverArgs } from '../server-args.mjs';
import { percentile } from '../lib/load';
import { freePort, freshDataDir, localServerEnv, removeDataDirs } from '../lib/server';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const rssMb = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024);

type Start = { answered: number; ready: number; rss: number };

async function start(dataDir: string): Promise<Start> {
  const port = await freePort();
  const began = performance.now();
  const proc = spawn(process.execPath, serverArgs(), {
    env: localServerEnv(port, dataDir, { TRIAD_LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  let answered = NaN;
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`the server exited (${proc.exitCode}) before it was ready`);
      if (performance.now() - began > 60_000) throw new Error('the server was not ready within 60 s');
      const status = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => (void r.body?.cancel(), r.status),
        () => 0,
      );
      const now = performance.now() - began;
      if (status && Number.isNaN(answered)) answered = now;
      if (status === 200) return { answered, ready: now, rss: rssMb(proc.pid!) };
      await sleep(20);
    }
  } finally {
    proc.kill('SIGTERM');
    await exited;
  }
}

async function main() {
  buildIfNeeded();
  const rows: Record<string, Start[]> = { 'new data directory (demo set up)': [], 'existing data directory': [] };
  for (let i = 0; i < RUNS; i++) {
    const dir = freshDataDir();
    rows['new data directory (demo set up)']!.push(await start(dir));
    rows['existing data directory']!.push(await start(dir));
  }
  const s = (ms: number) => (ms / 1000).toFixed(2);
  console.log(`\nbench:startup — ${RUNS} runs each, node ${process.version} (${process.execPath})\n`);
  console.log('| start | first answer (s) | ready (s) | RSS at ready (MB) | ready, each run (s) |');
  console.log('|---|---|---|---|---|');
  for (const [name, runs] of Object.entries(rows)) {
    const med = (pick: (r: Start) => number) => percentile(runs.map(pick), 50);
    console.log(
      `| ${name} | ${s(med((r) => r.answered))} | **${s(med((r) => r.ready))}** | ${med((r) => r.rss)} | ${runs.map((r) => s(r.ready)).join(', ')} |`,
    );
  }
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(removeDataDirs);
