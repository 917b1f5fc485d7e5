import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireLock, DataDirLockedError, lockPath, readLock } from './lock';

const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-lock-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('data directory lock', () => {
  it('is refused while another live process holds it, with the holder named', async () => {
    const dir = tempDir();
    // Another process writes a lock for itself, as a running server would, then stays alive.
    const holder = spawn(process.execPath, [
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(lockPath(dir))}, JSON.stringify({pid: process.pid, startTime: null, port: 4321, startedAt: ''})); setTimeout(() => {}, 30000)`,
    ]);
    try {
      await expect.poll(() => readLock(dir)?.pid, { timeout: 5000 }).toBe(holder.pid);
      expect(() => acquireLock(dir, 1)).toThrow(DataDirLockedError);
      expect(() => acquireLock(dir, 1)).toThrow(/in use by another Triad process \(pid \d+, port 4321\)/);
    } finally {
      holder.kill('SIGKILL');
    }
    await new Promise((r) => holder.on('exit', r));
    // Its holder is dead now (as after kill -9): the stale lock is replaced.
    const release = acquireLock(dir, 2);
    expect(readLock(dir)?.pid).toBe(process.pid);
    release();
    expect(fs.existsSync(lockPath(dir))).toBe(false);
  });

  it('treats a reused pid with another start time as stale', () => {
    const dir = tempDir();
    fs.writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, startTime: 'not-the-real-one', port: null, startedAt: '' }));
    expect(readLock(dir)).toBeNull();
    const release = acquireLock(dir, null);
    release();
  });
});
