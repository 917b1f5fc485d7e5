import { describe, expect, it } from 'vitest';
import { countOf, fromDateTimeLocal, HOUR_MS, randomSecret, relativeExpiry, timeTicks, toDateTimeLocal } from './format';

describe('relativeExpiry', () => {
  const now = 1_800_000_000_000;
  it('says how long is left, in the coarsest whole unit', () => {
    expect(relativeExpiry(now / 1000 + 3 * 3600 + 59, now)).toEqual({ text: 'expires in 3 h', expired: false });
    expect(relativeExpiry(now / 1000 + 2 * 86400, now)).toEqual({ text: 'expires in 2 d', expired: false });
    expect(relativeExpiry(now / 1000 + 42, now)).toEqual({ text: 'expires in 42 s', expired: false });
  });
  it('says expired once the time has come', () => {
    expect(relativeExpiry(now / 1000, now)).toEqual({ text: 'expired', expired: true });
    expect(relativeExpiry(now / 1000 - 120, now)).toEqual({ text: 'expired 2 min ago', expired: true });
  });
});

describe('datetime-local round trip', () => {
  it('keeps minutes', () => {
    const t = 1_800_000_000 - (1_800_000_000 % 60);
    expect(fromDateTimeLocal(toDateTimeLocal(t))).toBe(t);
    expect(fromDateTimeLocal('nonsense')).toBeNull();
  });
});

describe('randomSecret', () => {
  it('gives 32 bytes of entropy in 43 base64url characters', () => {
    const s = randomSecret(32);
    expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomSecret(32)).not.toBe(s);
  });
});

describe('formatDuration and formatDecimal', () => {
  it('reads like a person would say it', async () => {
    const { formatDuration, formatDecimal } = await import('./format');
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000 + 5)).toBe('3 d 4 h');
    expect(formatDuration(5 * 3_600_000 + 12 * 60_000)).toBe('5 h 12 min');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDecimal('1234567.120000')).toBe('1,234,567.12');
    expect(formatDecimal('0.1234567', 4)).toBe('0.1234');
    expect(formatDecimal('12')).toBe('12');
    const { formatUsd } = await import('./format');
    expect(formatUsd('1.4')).toBe('$1.40');
    expect(formatUsd('1234.5678')).toBe('$1,234.56');
    expect(formatUsd('0')).toBe('$0.00');
  });
});

describe('timeTicks', () => {
  const start = new Date(2026, 10, 17, 0, 0).getTime(); // local midnight, Nov 17
  const hours = (n: number, from = start) => Array.from({ length: n }, (_, i) => from + i * HOUR_MS);

  it('over days: one tick a day at its first bucket, each label once', () => {
    const { ticks, label } = timeTicks(hours(7 * 24));
    expect(ticks).toHaveLength(7);
    expect(ticks.map((t) => new Date(t).getHours())).toEqual([0, 0, 0, 0, 0, 0, 0]);
    const labels = ticks.map(label);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('over many days: every n-th day, at most `max` ticks, still unique', () => {
    const { ticks, label } = timeTicks(hours(21 * 24), 8);
    expect(ticks.length).toBeLessThanOrEqual(8);
    expect(ticks.length).toBeGreaterThanOrEqual(6);
    expect(new Set(ticks.map(label)).size).toBe(ticks.length);
  });

  it('within a day: hours, not the same date again and again', () => {
    const { ticks, label } = timeTicks(hours(12, start + 6 * HOUR_MS));
    expect(ticks.length).toBeLessThanOrEqual(8);
    const labels = ticks.map(label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels.every((l) => /\d{1,2}[:.]\d{2}/.test(l))).toBe(true);
  });

  it('the last 24 hours and the hour under way (25 buckets): hours with their weekday, each once', () => {
    const { ticks, label } = timeTicks(hours(25, start + 14 * HOUR_MS));
    const labels = ticks.map(label);
    expect(labels.length).toBeGreaterThanOrEqual(5);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels[0]).toMatch(/^\S+ \d{1,2}[:.]\d{2}/);
  });

  it('no buckets: no ticks', () => {
    expect(timeTicks([]).ticks).toEqual([]);
  });
});

describe('countOf', () => {
  it('says one thing in the singular, any other count in the plural, grouped', () => {
    expect(countOf(1, 'completion')).toBe('1 completion');
    expect(countOf(0, 'node')).toBe('0 nodes');
    expect(countOf(40, 'node')).toBe('40 nodes');
    expect(countOf(1204, 'token')).toBe('1,204 tokens');
    expect(countOf(2, 'match', 'matches')).toBe('2 matches');
  });
});
