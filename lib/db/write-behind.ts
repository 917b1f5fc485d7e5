import { shared } from '@/lib/core/runtime';
import { onShutdown } from '@/lib/shutdown';
import type { Db } from './client';

/*
 * Rows written behind the request path (chat usage, what nodes earn, the request log): gathered in
 * memory, rows alike (same `key`) merged into one (without `key`, each row is its own), and written in
 * one go at most `flushMs` after the first, or at once past `maxRows` distinct rows (which bounds memory
 * when writes lag). Writes run one after another; a clean shutdown flushes what is left; a crash loses at
 * most the last `flushMs` of rows, never a reply.
 * The buffers live in the process's shared runtime, so every copy of the code in the process (the
 * server's bundle, Next's) fills the same one.
 */
type Buffer = { db: Db | null; rows: Map<string, unknown>; list: unknown[]; timer: NodeJS.Timeout | null; writing: Promise<void> };
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
    /** Rows alike, merged by `merge`; without it, every row is its own. */
    key?: (row: R) => string;
    merge?: (into: R, row: R) => void;
    write: (db: Db, rows: R[]) => Promise<void>;
  },
): WriteBehind<R> {
  let found: Buffer | undefined;
  const buffer = (): Buffer => {
    if (found) return found;
    const all = shared('writeBehind', () => new Map<string, Buffer>());
    found = all.get(name);
    if (!found) {
      found = { db: null, rows: new Map(), list: [], timer: null, writing: Promise.resolve() };
      all.set(name, found);
      onShutdown(name, () => flush());
    }
    return found;
  };

  function flush(): Promise<void> {
    const b = buffer();
    if (b.timer) clearTimeout(b.timer);
    b.timer = null;
    const rows = (b.list.length ? b.list : [...b.rows.values()]) as R[];
    b.rows.clear();
    b.list = [];
    const db = b.db;
    if (rows.length && db) b.writing = b.writing.then(() => opts.write(db, rows));
    return b.writing;
  }

  return {
    record(db, row) {
      const b = buffer();
      b.db = db;
      if (opts.key && opts.merge) {
        const key = opts.key(row);
        const waiting = b.rows.get(key) as R | undefined;
        if (waiting) opts.merge(waiting, row);
        else b.rows.set(key, row);
      } else b.list.push(row);
      if (b.rows.size + b.list.length >= opts.maxRows) void flush();
      else b.timer ??= setTimeout(() => void flush(), opts.flushMs);
    },
    flush,
  };
}
