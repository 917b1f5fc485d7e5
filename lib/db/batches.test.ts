import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requestBegan, requestEnded } from '@/lib/core/in-flight';
import { inBatches } from './batches';
import type { Database } from './client';
import { engines } from './test-engines';

const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

afterEach(() => {
  vi.useRealTimers();
});

describe.each(engines)('housekeeping in batches (%s)', (name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ database: d, cleanup } = await open()));
  afterAll(() => cleanup());

  it('runs statements until one touches fewer rows than a batch, and totals them', async () => {
    const left = [3, 3, 3, 1];
    const sizes: number[] = [];
    const total = await inBatches(d.db, 3, async (size) => {
      sizes.push(size);
      return left.shift()!;
    });
    expect(total).toBe(10);
    expect(sizes).toEqual([3, 3, 3, 3]); // the fourth touched 1 < 3: no fifth
    expect(await inBatches(d.db, 5, async () => 0)).toBe(0);
  });

  it(
    name === 'PGlite'
      ? "the next statement waits while a request is in flight (it would hold that request's reply), and runs once it has closed"
      : 'the statements follow one another while requests are in flight (they run in the database server)',
    async () => {
      let statements = 0;
      let open = true;
      requestBegan(); // a request waiting for its model server
      try {
        const run = inBatches(d.db, 10, async () => (++statements < 3 ? 10 : 2), 60_000);
        await settle();
        if (name === 'PGlite') {
          expect(statements).toBe(1); // the first at once; the second not while the request is in flight
          open = false;
          requestEnded();
        }
        expect(await run).toBe(22);
        expect(statements).toBe(3);
      } finally {
        if (open) requestEnded();
      }
    },
  );

  it.skipIf(name !== 'PGlite')('on a server never quiet, the next statement runs after the longest wait all the same', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let statements = 0;
    requestBegan();
    try {
      const run = inBatches(d.db, 10, async () => (++statements < 3 ? 10 : 0), 100);
      await settle();
      expect(statements).toBe(1);
      vi.advanceTimersByTime(90);
      await settle();
      expect(statements).toBe(1);
      vi.advanceTimersByTime(20); // 110 ms: past the longest wait
      await settle();
      expect(statements).toBe(2);
      vi.advanceTimersByTime(100);
      expect(await run).toBe(20);
      expect(statements).toBe(3);
    } finally {
      requestEnded();
    }
  });
});
