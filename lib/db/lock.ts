import fs from 'node:fs';
import path from 'node:path';

/**
 * An exclusive lock on a data directory. PGlite has none of its own, and two processes
 * on one directory corrupt it, so the holder writes its pid (and its kernel start time, so
 * that a reused pid after a reboot is not mistaken for a live holder) into `triad.lock`.
 */
export type LockInfo = { pid: number; startTime: string | null; port: number | null; startedAt: string };

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockInfo,
  ) {
    super(
      `The data directory ${dataDir} is in use by another Triad process (pid ${holder.pid}` +
        `${holder.port ? `, port ${holder.port}` : ''}). Stop that process, or set TRIAD_DATA_DIR to another directory.`,
    );
  }
}

export const lockPath = (dataDir: string) => path.join(dataDir, 'triad.lock');

function processStartTime(pid: number): string | null {
  try {
    // Field 22 of /proc/<pid>/stat; the command name (field 2) may contain spaces, so split after its ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(info: LockInfo): boolean {
  try {
    process.kill(info.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = processStartTime(info.pid);
  return info.startTime === null || now === null || now === info.startTime;
}

function readRaw(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The current holder of the lock, if it is a live process. */
export function readLock(dataDir: string): LockInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(lockPath(dataDir), 'utf8')) as LockInfo;
    return typeof info.pid === 'number' && isAlive(info) ? info : null;
  } catch {
    return null;
  }
}

/** Takes the lock or throws DataDirLockedError; a stale lock (dead holder) is replaced. */
export function acquireLock(dataDir: string, port: number | null): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = lockPath(dataDir);
  const me: LockInfo = {
    pid: process.pid,
    startTime: processStartTime(process.pid),
    port,
    startedAt: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeFileSync(fd, JSON.stringify(me));
      fs.closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          const current = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
          if (current.pid === process.pid) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const seen = readRaw(file);
      const holder = readLock(dataDir);
      if (holder && holder.pid !== process.pid) throw new DataDirLockedError(dataDir, holder);
      // Stale (holder dead, killed with -9 say) or our own leftover: remove it, unless another
      // starting process replaced it in the meantime, and retry.
      if (readRaw(file) === seen) fs.rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}
