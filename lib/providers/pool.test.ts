import { describe, expect, it } from 'vitest';
import { choose, type Live } from './pool';
import { preferred } from './preferences';
import type { ProviderRecord } from './store';

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
