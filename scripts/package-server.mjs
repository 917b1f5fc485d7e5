#!/usr/bin/env node
// The packaged Triad's entry (`npm run package` copies this file to dist/triad/server.js): `node server.js`
// serves as `npm start` does. The server needs node flags and a C library setting that only a process's
// start can give (./server-flags.mjs), so a plain `node server.js` starts again with them: on Node 22.15 and
// later this process becomes the server (process.execve: one process, its pid and signals the server's);
// on older Node the server runs as its child (signals are passed on, its exit code is this one's, and it
// stops if this process dies). Started with the flags already (`node --no-memory-reducer --expose-gc
// --max-semi-space-size=16 server.js`, as the container does; on Node 22 with the context flag too), it
// serves in this process; started with some of them, it starts again with the others added. Node flags
// given to `node` are kept (one of the server's given another value, `--max-semi-space-size=32` say, stays so).
// Paths in the environment are read from the directory it was started in.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingFlags, serverEnv } from './server-flags.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// The data directory is read from the directory Triad was started in (./data by default), as with npm start.
process.env.TRIAD_DATA_DIR = path.resolve(process.env.TRIAD_DATA_DIR || 'data');

const missing = missingFlags(process.execArgv);
if (missing.length) {
  const args = [...process.execArgv, ...missing, fileURLToPath(import.meta.url), ...process.argv.slice(2)];
  // Becoming the server rather than waiting beside it: the 45–50 MB of a second Node process saved.
  if (typeof process.execve === 'function') {
    try {
      process.execve(process.execPath, [process.execPath, ...args], serverEnv(process.env));
    } catch {
      // (not allowed here, say: the server as a child below)
    }
  }
  const child = spawn(process.execPath, args, {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: serverEnv(process.env),
    // Its own process group: a terminal's Ctrl-C reaches it once, passed on from here.
    detached: true,
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
} else {
  if (process.channel) {
    // Started by the launcher above: stop with it, even when it was killed.
    process.channel.unref();
    process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  }
  // The server finds the app, its documents and migrations in its working directory.
  process.chdir(here);
  await import('./.next/triad/server.js');
}
