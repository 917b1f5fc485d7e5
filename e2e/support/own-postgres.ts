import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/*
 * A PostgreSQL server of the test's own (initdb + pg_ctl from the machine's binaries into a temporary
 * directory, on a free port), which the test may stop and start: the machine's shared server is never
 * touched. As root, the server runs as the `postgres` user (PostgreSQL refuses to run as root).
 * Its commands run without blocking the test's process: its requests go on meanwhile, and its kept-alive
 * connections see the server under test close them when idle (a synchronous wait longer than that
 * server's keep-alive left one looking alive, and the next request on it failed).
 */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const version = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin/initdb')))
    .sort((a, b) => Number(a) - Number(b))
    .at(-1);
  return version ? path.join(root, version, 'bin') : null;
}

export type OwnPostgres = { url: string; start(): Promise<void>; stop(): Promise<void>; remove(): Promise<void> };

const exec = promisify(execFile);

export async function ownPostgres(port: number): Promise<OwnPostgres> {
  const bin = postgresBin()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-own-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  // runuser lives in sbin, which a PATH without root's directories lacks.
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser'].find((p) => fs.existsSync(p)) ?? 'runuser';
  if (asRoot) await exec('chown', ['-R', 'postgres:postgres', dir]);
  const run = async (cmd: string, args: string[]) => {
    await exec(asRoot ? runuser : path.join(bin, cmd), asRoot ? ['-u', 'postgres', '--', path.join(bin, cmd), ...args] : args, {
      cwd: dir,
    });
  };
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const pgCtl = (...args: string[]) => run('pg_ctl', ['-D', data, '-w', '-t', '30', ...args]);
  const server = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => pgCtl('-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', path.join(dir, 'log'), 'start'),
    stop: () => pgCtl('-m', 'fast', 'stop'),
    remove: async () => {
      try {
        await server.stop();
      } catch {
        // not running
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
