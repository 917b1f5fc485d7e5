import { afterEach, describe, expect, it, vi } from 'vitest';
import { consume, MemoryWindows } from './rate-limit';

afterEach(() => vi.useRealTimers());

describe('rate limits in memory (no REDIS_URL)', () => {
  it('N+k requests at limit N: exactly N allowed, the rest told when to come back', async () => {
    const results = await Promise.all(Array.from({ length: 13 }, () => consume('memory-test', 'key-a', 10, 60)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results.map((r) => r.remaining).slice(0, 10)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const refused = results.filter((r) => !r.allowed);
    expect(refused).toHaveLength(3);
    expect(refused.every((r) => r.remaining === 0 && r.retryAfterS >= 59 && r.retryAfterS <= 60)).toBe(true);
    // Another key, and the same key under another limit, count on their own.
    expect(await consume('memory-test', 'key-b', 10, 60)).toMatchObject({ allowed: true, remaining: 9 });
    expect(await consume('memory-test', 'key-a', 20, 60)).toMatchObject({ allowed: true, remaining: 19 });
  });

  it('a window opens at its first request and ends after its length; ended ones are forgotten', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const windows = new MemoryWindows(1000);
    expect(windows.consume('a')).toEqual({ used: 1, msLeft: 1000 });
    vi.advanceTimersByTime(400);
    expect(windows.consume('a')).toEqual({ used: 2, msLeft: 600 });
    expect(windows.consume('b')).toEqual({ used: 1, msLeft: 1000 });
    expect(windows.get('a')).toEqual({ used: 2, msLeft: 600 });
    vi.advanceTimersByTime(600); // a's window is over, b's goes on
    expect(windows.get('a')).toBeNull();
    expect(windows.get('b')).toEqual({ used: 1, msLeft: 400 });
    expect(windows.consume('a')).toEqual({ used: 1, msLeft: 1000 });
    vi.advanceTimersByTime(5000);
    expect(windows.size).toBe(2); // nothing swept until a window opens
    windows.consume('c');
    expect(windows.size).toBe(1);
  });
});
