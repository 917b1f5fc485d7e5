import path from 'node:path';
import { readAdminSecret } from '@/lib/auth/admin-secret';
import { BackupError, restoreBackup } from '@/lib/admin/backup';
import { AdminError, type AdminCommand, runAdminCommand } from '@/lib/admin/commands';
import { type Config, parseConfig } from '@/lib/config';
import { openDatabase } from '@/lib/db/client';
import { readLock } from '@/lib/db/lock';

/*
 * How the command-line tools reach the store: PostgreSQL directly; the embedded database through
 * the server that holds it, when one runs (the lock file names its port), else directly.
 */
export class CliError extends Error {}

/** The port of the running server that holds the embedded data directory, if any. */
export function runningServerPort(c: Config): number | null {
  return c.driver === 'pglite' ? (readLock(c.dataDir)?.port ?? null) : null;
}

export async function runCommand(command: AdminCommand, c: Config = parseConfig(process.env)) {
  if (command.command === 'restore') {
    if (c.driver === 'postgres')
      throw new CliError('restore is for the embedded database; on PostgreSQL use pg_restore (docs/operations.md)');
    try {
      const { secret_key, ...manifest } = await restoreBackup(command.from, c.dataDir, c.TRIAD_SECRET_KEY);
      return {
        restored_into: c.dataDir,
        ...manifest,
        key: secret_key && !c.TRIAD_SECRET_KEY ? 'written to the data directory' : 'TRIAD_SECRET_KEY',
      };
    } catch (e) {
      if (e instanceof BackupError) throw new CliError(e.message);
      throw e;
    }
  }
  // The server writes the backup: give it the file as this shell means it.
  if (command.command === 'backup') command = { ...command, out: path.resolve(command.out) };
  const port = runningServerPort(c);
  return port ? runThroughServer(c, port, command) : runDirect(c, command);
}

export async function runThroughServer(c: Config, port: number, command: AdminCommand) {
  const secret = readAdminSecret(c.dataDir);
  if (!secret) throw new CliError(`a server holds ${c.dataDir} but its admin secret is unreadable; run this as the server's user`);
  const res = await fetch(`http://127.0.0.1:${port}/api/admin`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(command),
  }).catch((e: Error) => {
    throw new CliError(`the server holding ${c.dataDir} (port ${port}) did not answer: ${e.message}`);
  });
  const body = (await res.json().catch(() => null)) as {
    data?: Record<string, unknown>;
    error?: { message: string; detail?: string };
  } | null;
  if (!res.ok || !body?.data) throw new CliError(body?.error?.detail ?? body?.error?.message ?? `server answered ${res.status}`);
  return body.data;
}

export async function runDirect(c: Config, command: AdminCommand) {
  const database = await openDatabase(
    c.driver === 'postgres' ? { driver: 'postgres', url: c.DATABASE_URL!, poolSize: 2 } : { driver: 'pglite', dataDir: c.dataDir },
  );
  try {
    return await runAdminCommand(database.db, command, database);
  } catch (e) {
    if (e instanceof AdminError) throw new CliError(e.message);
    throw e;
  } finally {
    await database.close();
  }
}
