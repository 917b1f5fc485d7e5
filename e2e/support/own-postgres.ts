import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/*
 * A PostgreSQL server of the test's own (initdb + pg_ctl from the machine's binaries into a temporary
 * directory, on a free port), which the test may stop and start: the machine's shared server is never
 * touched. As root, the server runs as the `postgres` user (PostgreSQL refuses to run as root).
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

export type OwnPostgres = { url: string; start(): void; stop(): void; remove(): void };

export function ownPostgres(port: number): OwnPostgres {
  const bin = postgresBin()!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-own-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  // runuser lives in sbin, which a PATH without root's directories lacks.
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser'].find((p) => fs.existsSync(p)) ?? 'runuser';
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? runuser : path.join(bin, cmd), asRoot ? ['-u', 'postgres', '--', path.join(bin, cmd), ...args] : args, {
      stdio: 'ignore',
      cwd: dir,
    });
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const pgCtl = (...args: string[]) => run('pg_ctl', ['-D', data, '-w', '-t', '30', ...args]);
  const server = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => pgCtl('-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', path.join(dir, 'log'), 'start'),
    stop: () => pgCtl('-m', 'fast', 'stop'),
    remove: () => {
      try {
        server.stop();
      } catch {
        // not running
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  server.start();
  return server;
}
