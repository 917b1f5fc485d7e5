import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { engines, freshPglite } from '@/lib/db/test-engines';
import { databaseBudgets } from './db-store';
import { flushSpend, memoryBudgets } from './memory-store';
import { periodEnd, periodStart } from './periods';
import { redisBudgets } from './redis-store';
import type { BudgetStore } from './store';

describe('budget periods (UTC calendar)', () => {
  const t = Date.UTC(2026, 10, 26, 15, 30); // a Thursday
  it('start and end of a day, a week from Monday, a month, and total', () => {
    expect(periodStart(t, 'day')).toBe(Date.UTC(2026, 10, 26));
    expect(periodEnd(t, 'day')).toBe(Date.UTC(2026, 10, 27));
    expect(periodStart(t, 'week')).toBe(Date.UTC(2026, 10, 23));
    expect(periodEnd(t, 'week')).toBe(Date.UTC(2026, 10, 30));
    expect(periodStart(Date.UTC(2026, 10, 23), 'week')).toBe(Date.UTC(2026, 10, 23)); // Monday 00:00 is its own week
    expect(periodStart(Date.UTC(2026, 10, 22, 23, 59), 'week')).toBe(Date.UTC(2026, 10, 16)); // Sunday is the week before's
    expect(periodStart(t, 'month')).toBe(Date.UTC(2026, 10, 1));
    expect(periodEnd(Date.UTC(2026, 11, 31, 23), 'month')).toBe(Date.UTC(2027, 0, 1));
    expect(periodStart(t, 'total')).toBe(0);
    expect(periodEnd(t, 'total')).toBeNull();
  });
});

/** The store's promises, whatever keeps it: a burst never reserves past the limit, settling is exact, lapsed holds are swept. */
function storeContract(open: () => Promise<{ store: BudgetStore; close: () => Promise<void> }>, { holdsLapse = true } = {}) {
  let opened: { store: BudgetStore; close: () => Promise<void> };
  afterAll(() => opened?.close());
  it('a burst of 50 reservations of 0.03 on 1.00: exactly 33 fit, each refusal says less than 0.03 remained', async () => {
    opened = await open();
    const { store } = opened;
    const line = (amount: string) => [{ scope: 'key:burst|day', periodStart: 0, limit: '1.00', amount }];
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.reserve(`h${i}`, line('0.03'), Date.now() + 60_000, Date.now())),
    );
    const held = results.flatMap((r, i) => (r === null ? [`h${i}`] : []));
    expect(held).toHaveLength(33);
    for (const r of results) if (r) expect(Number(r.remaining)).toBeLessThan(0.03);
    expect(await store.figures('key:burst|day', 0)).toEqual({ spent: expect.stringMatching(/^0(\.0*)?$/), reserved: expect.any(String) });
    expect(Number((await store.figures('key:burst|day', 0)).reserved)).toBeCloseTo(0.99, 12);
    // Settled to their real cost: the holds become spend, exactly.
    // (Redis counts whole nano-dollars, a cost rounded up to them: this one has nine decimals.)
    await Promise.all(held.map((id) => store.settle(id, line('0'), '0.012345678')));
    const f = await store.figures('key:burst|day', 0);
    expect(Number(f.reserved)).toBe(0);
    expect(f.spent.replace(/0+$/, '')).toBe('0.407407374'); // 33 × 0.012345678
  });
  it.skipIf(!holdsLapse)('a hold past its expiry (its instance gone) is swept by the next reservation on its scope', async () => {
    const { store } = opened;
    const line = [{ scope: 'org:crash|total', periodStart: 0, limit: '0.10', amount: '0.08' }];
    expect(await store.reserve('lost', line, Date.now() - 1, Date.now() - 1000)).toBeNull();
    // It no longer holds: a reservation that fits only without it is made.
    expect(await store.reserve('next', line, Date.now() + 60_000, Date.now())).toBeNull();
    expect(Number((await store.figures('org:crash|total', 0)).reserved)).toBeCloseTo(0.08, 12);
    // The lost one's late settlement adds what it spent, and does not free the other's hold.
    await store.settle('lost', line, '0.01');
    expect(await store.figures('org:crash|total', 0)).toMatchObject({ spent: expect.stringMatching(/^0\.010*$/) });
    expect(Number((await store.figures('org:crash|total', 0)).reserved)).toBeCloseTo(0.08, 12);
  });
  it('two scopes reserve together or not at all', async () => {
    const { store } = opened;
    const both = (amount: string) => [
      { scope: 'key:k|day', periodStart: 0, limit: '1', amount },
      { scope: 'org:o|day', periodStart: 0, limit: '0.5', amount },
    ];
    expect(await store.reserve('a', both('0.4'), Date.now() + 60_000, Date.now())).toBeNull();
    expect(await store.reserve('b', both('0.4'), Date.now() + 60_000, Date.now())).toMatchObject({ scope: 'org:o|day' });
    // The key's line of the refused one was not kept.
    expect(Number((await store.figures('key:k|day', 0)).reserved)).toBeCloseTo(0.4, 12);
  });
}

describe.each(engines)('budgets in the database (%s)', (_name, openEngine) => {
  storeContract(async () => {
    const { database, cleanup } = await openEngine();
    return { store: databaseBudgets(database.db), close: cleanup };
  });
});

describe('budgets of the embedded database, in its one process', () => {
  let database: Awaited<ReturnType<typeof freshPglite>>;
  afterAll(() => database?.cleanup());
  // Holds are the process's own (a crash takes them with it): none lapse.
  storeContract(
    async () => {
      database = await freshPglite();
      return { store: memoryBudgets(database.database.db), close: async () => {} };
    },
    { holdsLapse: false },
  );
  it('what was spent is written through: a new process reads it back', async () => {
    await flushSpend();
    const again = () => memoryBudgets(database.database.db).figures('key:burst|day', 0);
    await expect.poll(async () => (await again()).spent.replace(/0+$/, ''), { timeout: 10_000 }).toBe('0.407407374');
    expect((await again()).reserved).toBe('0');
  });
});

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
const reachable = await probe.connect().then(
  () => true,
  () => false,
);
probe.disconnect();

describe.skipIf(!reachable)('budgets in Redis', () => {
  storeContract(async () => {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    const prefix = `triad-test-${randomBytes(6).toString('hex')}`;
    return {
      store: redisBudgets(redis, prefix, () => 0),
      close: async () => {
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
        redis.disconnect();
      },
    };
  });
});
