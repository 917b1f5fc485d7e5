import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseKey, SecretBox, secretBox } from '@/lib/auth/secret-box';
import { type Database, migrationsFolder } from '@/lib/db/client';
import { readLock } from '@/lib/db/lock';

/*
 * Backup and restore of the embedded database (design §12). A backup is one file, a tar of two
 * entries: `manifest.json` (Triad's version, the last migration, the time, the secret key's
 * fingerprint — the key itself only with --include-key) and `pgdata.tar.gz` (PGlite's data directory,
 * dumped by the running server after a CHECKPOINT, no statement running meanwhile). A restore goes
 * into an empty data directory only, and refuses when the secret key it would run with is not the one
 * the backup's secrets were encrypted with.
 */
export class BackupError extends Error {
  override name = 'BackupError';
}

export const manifestSchema = z.object({
  format: z.literal('triad-backup/1'),
  triad_version: z.string(),
  last_migration: z.string(),
  created_at: z.string(),
  driver: z.literal('pglite'),
  secret_key_fingerprint: z.string(),
  /** Only in a backup made with --include-key (64 hex digits). */
  secret_key: z.string().optional(),
});
export type Manifest = z.infer<typeof manifestSchema>;

function triadVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(process.cwd(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function lastMigration(): string {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  return journal.entries.at(-1)?.tag ?? 'none';
}

/* A minimal ustar archive: regular files only, which is all a backup holds. */
function tarEntry(name: string, data: Buffer): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000600\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(data.length.toString(8).padStart(11, '0') + '\0', 124);
  header.write(
    Math.floor(Date.now() / 1000)
      .toString(8)
      .padStart(11, '0') + '\0',
    136,
  );
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const b of header) sum += b;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return Buffer.concat([header, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

function readTar(buf: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= buf.length;) {
    const header = buf.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    if (!Number.isFinite(size) || at + 512 + size > buf.length) throw new BackupError('the backup file is damaged (cut short?)');
    files.set(name, buf.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Writes a backup of the running embedded database to `out` (which must not exist), mode 0600. */
export async function writeBackup(database: Database, out: string, { includeKey = false } = {}): Promise<Manifest> {
  if (database.driver !== 'pglite' || !database.dump) {
    throw new BackupError('backup is for the embedded database; on PostgreSQL use pg_dump (docs/operations.md, "Backup and restore")');
  }
  const file = path.resolve(out);
  if (fs.existsSync(file)) throw new BackupError(`${file} exists; give a new file name`);
  const box = secretBox();
  const manifest: Manifest = {
    format: 'triad-backup/1',
    triad_version: triadVersion(),
    last_migration: lastMigration(),
    created_at: new Date().toISOString(),
    driver: 'pglite',
    secret_key_fingerprint: box.fingerprint(),
    ...(includeKey ? { secret_key: box.exportKey() } : {}),
  };
  const data = Buffer.from(await (await database.dump()).arrayBuffer());
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(
    tmp,
    Buffer.concat([
      tarEntry('manifest.json', Buffer.from(JSON.stringify(manifest, null, 2))),
      tarEntry('pgdata.tar.gz', data),
      Buffer.alloc(1024),
    ]),
    { mode: 0o600 },
  );
  fs.renameSync(tmp, file);
  return manifest;
}

/** Reads a backup's manifest and data. */
export function readBackup(from: string): { manifest: Manifest; data: Buffer } {
  let raw: Buffer;
  try {
    raw = fs.readFileSync(from);
  } catch (e) {
    throw new BackupError(`cannot read ${from}: ${(e as Error).message}`);
  }
  const files = readTar(raw);
  const manifestText = files.get('manifest.json');
  const data = files.get('pgdata.tar.gz');
  if (!manifestText || !data) throw new BackupError(`${from} is not a Triad backup (no manifest.json and pgdata.tar.gz)`);
  const parsed = manifestSchema.safeParse(JSON.parse(manifestText.toString('utf8')));
  if (!parsed.success) throw new BackupError(`${from}: its manifest is not one this version of Triad reads`);
  return { manifest: parsed.data, data };
}

/**
 * Restores `from` into `dataDir`, which must be empty (or not exist). The secret key: TRIAD_SECRET_KEY
 * when set (it must be the backup's), else the one in the backup (written to the data directory's key
 * file); a backup without its key needs TRIAD_SECRET_KEY.
 */
export async function restoreBackup(from: string, dataDir: string, envKey: string | undefined): Promise<Manifest> {
  const { manifest, data } = readBackup(from);
  const dir = path.resolve(dataDir);
  if (readLock(dir)) throw new BackupError(`a Triad server is running on ${dir}; restore into an empty data directory with no server`);
  if (fs.existsSync(dir) && fs.readdirSync(dir).length)
    throw new BackupError(`${dir} is not empty; restore into an empty data directory (nothing is overwritten)`);
  const key = envKey ? parseKey(envKey) : manifest.secret_key ? parseKey(manifest.secret_key) : null;
  if (!key) {
    throw new BackupError(
      `the backup holds no secret key (made without --include-key): set TRIAD_SECRET_KEY to the key it was made with (fingerprint ${manifest.secret_key_fingerprint})`,
    );
  }
  const fingerprint = new SecretBox(key).fingerprint();
  if (fingerprint !== manifest.secret_key_fingerprint) {
    throw new BackupError(
      `the secret key does not match the backup's (fingerprint ${fingerprint}, the backup's ${manifest.secret_key_fingerprint}): its encrypted secrets could not be read`,
    );
  }
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dir, '.restore-'));
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const pg = new PGlite(tmp, { loadDataDir: new Blob([new Uint8Array(data)]) });
    await pg.waitReady;
    await pg.query('select 1');
    await pg.close();
    fs.renameSync(tmp, path.join(dir, 'pglite'));
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new BackupError(`the backup's database could not be restored: ${(e as Error).message}`);
  }
  if (!envKey) fs.writeFileSync(path.join(dir, 'secret.key'), key.toString('hex') + '\n', { mode: 0o600 });
  return manifest;
}
