import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { choose, currentProviders, type Live, pool, QUIET_MS, refreshProvider, SYNC_MS, syncProviders } from './pool';
import { preferred } from './preferences';
import { createProvider, type ProviderRecord } from './store';

const live = (id: string, weight: number, extra: Partial<Live> = {}, record: Partial<ProviderRecord> = {}): Live => ({
  record: { id, name: id, weight, enabled: true, state: 'up', ...record } as ProviderRecord,
  clientKey: id,
  served: new Map([['m', 'm']]),
  inFlight: 0,
  failures: 0,
  downAt: null,
  coolUntil: 0,
  current: 0,
  counts: { ok: 0, failed: 0, firstByteSum: 0 },
  recent: { firstByteMs: null, tokensPerS: null },
  ...extra,
});

const tally = (all: Live[], n: number) => {
  const seen: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const p = choose(all, 'm', new Set())!;
    seen[p.record.id] = (seen[p.record.id] ?? 0) + 1;
  }
  return seen;
};

describe('choose', () => {
  it('splits sequential traffic by weight exactly', () => {
    expect(tally([live('a', 1), live('b', 1), live('c', 2)], 1000)).toEqual({ a: 250, b: 250, c: 500 });
  });

  it('skips a provider with more in flight than its share, those tried, cooling, down or not serving the model', () => {
    const stuck = live('stuck', 1, { inFlight: 5 });
    expect(tally([stuck, live('a', 1)], 10)).toEqual({ a: 10 });
    expect(choose([live('a', 1), live('b', 1)], 'm', new Set(['a']))?.record.id).toBe('b');
    expect(choose([live('a', 1, { coolUntil: Date.now() + 10_000 })], 'm', new Set())).toBeNull();
    expect(choose([live('a', 1, { downAt: 1 })], 'm', new Set())).toBeNull();
    expect(choose([live('a', 1, {}, { state: 'down' })], 'm', new Set())).toBeNull();
    expect(choose([live('a', 1, {}, { enabled: false })], 'm', new Set())).toBeNull();
    expect(choose([live('a', 1)], 'other', new Set())).toBeNull();
  });
});

describe('routing preferences (design §17)', () => {
  const priced = (
    id: string,
    prompt: string | null,
    completion: string | null,
    recent: Live['recent'] = { firstByteMs: null, tokensPerS: null },
  ) => live(id, 1, { recent }, { pricePrompt: prompt, priceCompletion: completion });
  const a = priced('a', '3', '6', { firstByteMs: 300, tokensPerS: 40 });
  const b = priced('b', '1', '2', { firstByteMs: 90, tokensPerS: 25 });
  const c = priced('c', null, null, { firstByteMs: null, tokensPerS: 80 });
  const all = [a, b, c];
  const names = (l: Live[] | null) => l?.map((x) => x.record.name) ?? null;
  const run = (prefs: Parameters<typeof preferred>[1]) => preferred(all, prefs, (l) => l.recent, 'm');

  it('sort: cheapest, quickest to a first byte (unmeasured last), most tokens a second', () => {
    expect(names(run({ sort: 'price' }).order)).toEqual(['c', 'b', 'a']);
    expect(names(run({ sort: 'latency' }).order)).toEqual(['b', 'a', 'c']);
    expect(names(run({ sort: 'throughput' }).order)).toEqual(['c', 'a', 'b']);
  });
  it('order first, then the rest; without fallbacks, the ordered only', () => {
    expect(names(run({ order: ['a'], sort: 'price' }).order)).toEqual(['a', 'c', 'b']);
    expect(names(run({ order: ['b', 'a'], allow_fallbacks: false }).left)).toEqual(['b', 'a']);
    expect(run({ sort: 'price', allow_fallbacks: false }).attempts).toBe(1);
  });
  it('only, ignore and max_price narrow the choice; none left is a 400 naming the preference', () => {
    expect(names(run({ only: ['a', 'c'] }).left)).toEqual(['a', 'c']);
    expect(run({ only: ['a', 'c'] }).order).toBeNull(); // the usual weighted choice among them
    expect(names(run({ ignore: ['a'] }).left)).toEqual(['b', 'c']);
    expect(names(run({ max_price: { prompt: 1, completion: 2 } }).left)).toEqual(['b', 'c']);
    expect(() => run({ only: ['nowhere'] })).toThrow(expect.objectContaining({ status: 400, param: 'provider.only' }));
    expect(() => run({ ignore: ['a', 'b', 'c'] })).toThrow(expect.objectContaining({ param: 'provider.ignore' }));
    expect(() => run({ order: ['x'], allow_fallbacks: false })).toThrow(expect.objectContaining({ param: 'provider.order' }));
  });
});

describe.each(engines)("the pool's view of the providers (%s)", (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ database: d, cleanup } = await open()));
  afterAll(() => cleanup());
  const add = (name: string) =>
    createProvider(d.db, { name, base_url: `http://127.0.0.1:9/${name}`, weight: 1, timeout_ms: 1000, enabled: true, models: ['m'] });
  const names = () => pool().list.map((l) => l.record.name);

  it('one provider read again: added, changed and removed without a reload of the rest, what was counted for it kept', async () => {
    await add('first');
    await syncProviders(d.db);
    expect(names()).toContain('first');
    const first = pool().list.find((l) => l.record.name === 'first')!;
    first.counts.ok = 7;
    const second = await add('second');
    // Made behind the view's back: a reload would see both; one read of `second` adds it alone.
    await d.db.execute(sql`update providers set weight = 5 where name = 'first'`);
    await refreshProvider(d.db, second.id);
    expect(names()).toContain('second');
    expect(pool().list.find((l) => l.record.name === 'first')!.record.weight).toBe(1);
    await d.db.execute(sql`update providers set state = 'up' where id = ${second.id}`);
    await refreshProvider(d.db, second.id);
    expect(pool().byId.get(second.id)!.record.state).toBe('up');
    await d.db.execute(sql`delete from providers where id = ${second.id}`);
    await refreshProvider(d.db, second.id);
    expect(names()).not.toContain('second');
    await syncProviders(d.db);
    expect(pool().list.find((l) => l.record.name === 'first')).toMatchObject({ record: { weight: 5 }, counts: { ok: 7 } });
  });

  it('is reloaded every SYNC_MS by a timer of its own while requests come, not in the path of the request that finds it due', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const settled = () => pool().tail; // the reload asked for, if any, read and applied
    try {
      await currentProviders(d.db); // a request: the timer runs
      await add('timed'); // behind the view's back
      vi.advanceTimersByTime(SYNC_MS);
      await settled();
      expect(names()).toContain('timed');

      // A request finding the view due (older than SYNC_MS, its timer not yet fired) does not reload it.
      await add('later');
      vi.setSystemTime(Date.now() + SYNC_MS + 100);
      expect(currentProviders(d.db)).toBe(pool().list);
      expect(pool().reloadQueued).toBeNull();
      await settled();
      expect(names()).not.toContain('later');
      vi.advanceTimersByTime(SYNC_MS);
      await settled();
      expect(names()).toContain('later');

      // No request for QUIET_MS: the timer stops, and nothing is read.
      vi.setSystemTime(Date.now() + QUIET_MS);
      vi.advanceTimersByTime(SYNC_MS);
      expect(pool().timer).toBeNull();
      await add('quiet');
      vi.advanceTimersByTime(5 * SYNC_MS);
      await settled();
      expect(names()).not.toContain('quiet');
      // The next request finds the view older than twice SYNC_MS: reloaded (in the background), the timer going again.
      currentProviders(d.db);
      await settled();
      expect(names()).toContain('quiet');
      expect(pool().timer).not.toBeNull();
    } finally {
      clearInterval(pool().timer ?? undefined);
      pool().timer = null;
      vi.useRealTimers();
    }
  });

  it('reads are applied in the order they were asked for: a reload under way does not undo a later refresh', async () => {
    const p = await add('raced');
    await syncProviders(d.db);
    const reload = syncProviders(d.db);
    const again = syncProviders(d.db); // asked while one waits its turn: shares it
    expect(again).toBe(reload);
    await d.db.execute(sql`update providers set state = 'down' where id = ${p.id}`);
    const refresh = refreshProvider(d.db, p.id);
    await Promise.all([reload, refresh]);
    expect(pool().byId.get(p.id)!.record.state).toBe('down');
  });
});
