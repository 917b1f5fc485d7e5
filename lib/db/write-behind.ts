import { shared } from '@/lib/core/runtime';
import { onShutdown } from '@/lib/shutdown';
import type { Db } from './client';

/*
 * Rows written behind the request path (chat usage, what nodes earn): gathered in memory, rows alike
 * (same `key`) merged into one, and written in one go at most `flushMs` after the first, or at once
 * past `maxRows` distinct rows (which bounds memory when writes lag). Writes run one after another; a
 * clean shutdown flushes what is left; a crash loses at most the last `flushMs` of rows, never a reply.
 * The buffers live in the process's shared runtime, so every copy of the code in the process (the
 * server's bundle, Next's) fills the same one.
 */
type Buffer = { db: Db | null; rows: Map<string, unknown>; timer: NodeJS.Timeout | null; writing: Promise<void> };
declare module '@/lib/core/runtime' {
  interface Runtime {
    writeBehind: Map<string, Buffer>;
  }
}

export type WriteBehind<R> = {
  /** Adds a row (merged into a waiting one with the same key); never waits. */
  record(db: Db, row: R): void;
  /** Writes what was recorded so far; resolves once it (and any write under way) is stored. */
  flush(): Promise<void>;
};

export function writeBehind<R>(
  name: string,
  opts: {
    flushMs: number;
    maxRows: number;
    key: (row: R) => string;
    merge: (into: R, row: R) => void;
    write: (db: Db, rows: R[]) => Promise<void>;
  },
): WriteBehind<R> {
  const buffer = (): Buffer => {
    const all = shared('writeBehind', () => new Map<string, Buffer>());
    let b = all.get(name);
    if (!b) {
      b = { db: null, rows: new Map(), timer: null, writing: Promise.resolve() };
      all.set(name, b);
      onShutdown(name, () => flush());
    }
    return b;
  };

  function flush(): Promise<void> {
    const b = buffer();
    if (b.timer) clearTimeout(b.timer);
    b.timer = null;
    const rows = [...b.rows.values()] as R[];
    b.rows.clear();
    const db = b.db;
    if (rows.length && db) b.writing = b.writing.then(() => opts.write(db, rows));
    return b.writing;
  }

  return {
    record(db, row) {
      const b = buffer();
      b.db = db;
      const key = opts.key(row);
      const waiting = b.rows.get(key) as R | undefined;
      if (waiting) opts.merge(waiting, row);
      else b.rows.set(key, row);
      if (b.rows.size >= opts.maxRows) void flush();
      else b.timer ??= setTimeout(() => void flush(), opts.flushMs);
    },
    flush,
  };
}
