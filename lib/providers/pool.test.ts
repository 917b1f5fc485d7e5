import { describe, expect, it } from 'vitest';
import { choose, type Live } from './pool';
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
