import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serverArgs, serverEnv } from '../server-args.mjs';

const root = path.resolve(import.meta.dirname, '../..');

export type RunningServer = {
  proc: ChildProcess;
  url: string;
  port: number;
  dataDir: string;
  output: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

const made: string[] = [];

// Servers still running when this process exits (a test that timed out, a benchmark that threw) are
// stopped with it rather than left behind holding their ports and data directories.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGTERM');
});

export function freshDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-lifecycle-'));
  made.push(dir);
  return dir;
}

/** Removes the data directories made by freshDataDir (call from afterAll, once their servers stopped). */
export function removeDataDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Listens on `port` (0: any the system picks) for a moment: the port it got, or null when it is taken. */
async function probe(port: number): Promise<number | null> {
  const server = net.createServer().listen(port, '127.0.0.1');
  const listening = await new Promise<boolean>((resolve) =>
    server.once('listening', () => resolve(true)).once('error', () => resolve(false)),
  );
  if (!listening) return null;
  const { port: got } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return got;
}

/** A port nothing listens on: one the system picks for a moment's listener. */
export async function freePort(): Promise<number> {
  const port = await probe(0);
  if (port === null) throw new Error('no free port on 127.0.0.1');
  return port;
}

/** Two ports in a row that nothing listens on (for `npm run start:cluster -- --base-port`). */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port < 65535 && (await probe(port + 1)) !== null) return port;
  }
}

/**
 * Starts `npm start` (without rebuilding) on `dataDir`; resolves once it says "ready", or once it
 * exits (then `exited` tells how). Nothing is mocked: a real server on a real port.
 *
 * The port is one the system has just found free (test workers and benchmarks run side by side, so
 * a port of our own choosing could be another's); should another process take it in the moment
 * between, the start is tried again on a new one.
 */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    const server = await startOn(await freePort(), dataDir, env);
    const lostPort = server.proc.exitCode !== null && server.output().includes('EADDRINUSE');
    if (!lostPort || attempt === 3) return server;
  }
}

async function startOn(port: number, dataDir: string, env: Record<string, string>): Promise<RunningServer> {
  return spawnServer(serverArgs(), { cwd: root, port, dataDir, env: localServerEnv(port, dataDir, env) });
}

/**
 * The environment of a server under test or benchmark: this process's, with npm start's (SERVER_ENV),
 * on the embedded database in `dataDir` (DATABASE_URL cleared), listening on 127.0.0.1:`port`; `env` last.
 */
export function localServerEnv(port: number, dataDir: string, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return serverEnv({ ...process.env, DATABASE_URL: '', PORT: String(port), TRIAD_HOST: '127.0.0.1', TRIAD_DATA_DIR: dataDir, ...env });
}

/**
 * Starts `node <args>` (a Triad server listening on `port`, with the environment given whole); resolves
 * once it says "ready", or once it exits (then `exited` tells how).
 */
export async function spawnServer(
  args: string[],
  { cwd, env, port, dataDir }: { cwd: string; env: NodeJS.ProcessEnv; port: number; dataDir: string },
): Promise<RunningServer> {
  const proc = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    // A first start sets up the demo and its history: 15–20 s on this project's VM on a slow day, more under load.
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${out}`)), 120_000);
    const check = () => {
      if (out.includes('"msg":"ready"')) {
        clearTimeout(timer);
        // (Not looked for again: scanning the whole output at each write of a busy server was quadratic.)
        proc.stdout!.off('data', check);
        resolve();
      }
    };
    proc.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    proc,
    port,
    dataDir,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
