import { describe, expect, it } from 'vitest';
import { bucketOf, presetRange, PRESETS, rangeProblem } from './range-picker';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.UTC(2026, 10, 26, 14, 25); // 14:25 UTC

describe('range presets', () => {
  it('end with the hour under way and start N hours or days before now, rounded down', () => {
    expect(PRESETS.map((p) => p.label)).toEqual(['1 h', '6 h', '24 h', '7 d', '14 d', '30 d', '90 d']);
    const oneHour = presetRange('1 h', now);
    expect([oneHour.start, oneHour.end]).toEqual([Date.UTC(2026, 10, 26, 13), Date.UTC(2026, 10, 26, 15)]);
    expect(presetRange('24 h', now).end - presetRange('24 h', now).start).toBe(25 * HOUR);
    expect(presetRange('7 d', now).end - presetRange('7 d', now).start).toBe(7 * DAY + HOUR);
    // 14 days is the API's limit for hourly buckets.
    expect(presetRange('14 d', now).end - presetRange('14 d', now).start).toBe(14 * DAY);
    expect(bucketOf(presetRange('14 d', now))).toBe('hour');
  });

  it('past 14 days: per-day buckets from a UTC midnight', () => {
    const r = presetRange('30 d', now);
    expect(bucketOf(r)).toBe('day');
    expect(r.start % DAY).toBe(0);
    expect(r.start).toBe(Date.UTC(2026, 9, 27));
    expect(bucketOf(presetRange('90 d', now))).toBe('day');
  });

  it('refuse a range reaching into the future, or longer than the API takes', () => {
    expect(rangeProblem(now - DAY, now + 2 * HOUR, now)).toMatch(/future/);
    expect(rangeProblem(now + DAY, now + 2 * DAY, now)).toMatch(/future/);
    expect(rangeProblem(now - 30 * DAY, now, now)).toBeNull();
    expect(rangeProblem(now - 400 * DAY, now, now)).toBe('A range can be at most 366 days; this one is 400.0 days.');
    expect(rangeProblem(now, now, now)).toMatch(/at least an hour/);
  });
});
