import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestBegan, requestEnded } from '@/lib/core/in-flight';
import { cachedPrincipal, forgetPrincipals } from './principal-cache';

const tick = () => new Promise((r) => setImmediate(r));
const settle = async () => {
  for (let i = 0; i < 5; i++) await tick();
};

afterEach(() => {
  vi.useRealTimers();
  forgetPrincipals();
});

describe('principal cache', () => {
  it('answers from the cache within the time, and looks up again once it has passed', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const load = vi.fn(async () => ({ id: 'k1' }));
    expect(await cachedPrincipal('a', 1000, load)).toEqual({ id: 'k1' });
    vi.advanceTimersByTime(300);
    expect(await cachedPrincipal('a', 1000, load)).toEqual({ id: 'k1' });
    expect(load).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000); // unused for longer than its time: never served stale
    await cachedPrincipal('a', 1000, load);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('a credential in use is looked up again in the background before it expires; the request does not wait', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let rpm = 10;
    const load = vi.fn(async () => ({ rpm }));
    await cachedPrincipal('b', 1000, load);
    rpm = 20; // changed elsewhere
    vi.advanceTimersByTime(600); // past half its time
    expect(await cachedPrincipal('b', 1000, load)).toEqual({ rpm: 10 }); // at once, from the cache
    await settle();
    expect(load).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(600); // past the first expiry: the refreshed entry serves, without a lookup
    expect(await cachedPrincipal('b', 1000, load)).toEqual({ rpm: 20 });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('the background lookup waits for a moment with no request in flight, or nine tenths of the time when there is none', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const load = vi.fn(async () => ({ id: 'k' }));
    await cachedPrincipal('f', 1000, load);
    requestBegan(); // a request waiting for its model server
    vi.advanceTimersByTime(600);
    expect(await cachedPrincipal('f', 1000, load)).toEqual({ id: 'k' });
    await settle();
    expect(load).toHaveBeenCalledTimes(1); // not while it is in flight
    requestEnded();
    await settle();
    expect(load).toHaveBeenCalledTimes(2); // once it has closed

    // A server never quiet: the lookup runs at nine tenths of the refreshed entry's time all the same.
    requestBegan();
    vi.advanceTimersByTime(600); // 600 ms into the entry refreshed above (its time 1 000)
    await cachedPrincipal('f', 1000, load);
    await settle();
    vi.advanceTimersByTime(250); // 850 ms
    await settle();
    expect(load).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(60); // 910 ms
    await settle();
    expect(load).toHaveBeenCalledTimes(3);
    requestEnded();
    await settle();
    expect(load).toHaveBeenCalledTimes(3); // not twice
  });

  it('a credential revoked elsewhere drops out at the background lookup', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    let valid = true;
    const load = vi.fn(async () => (valid ? { id: 'k' } : null));
    await cachedPrincipal('c', 1000, load);
    valid = false;
    vi.advanceTimersByTime(600);
    await cachedPrincipal('c', 1000, load);
    await settle();
    expect(await cachedPrincipal('c', 1000, load)).toBeNull();
  });

  it('a revocation through this process wins over a lookup that was under way', async () => {
    let release!: () => void;
    const slow = vi.fn(() => new Promise<{ id: string }>((resolve) => (release = () => resolve({ id: 'k' }))));
    const pending = cachedPrincipal('d', 1000, slow);
    forgetPrincipals(); // the key is revoked while its lookup runs
    release();
    expect(await pending).toEqual({ id: 'k' }); // that request was already under way
    const after = vi.fn(async () => null);
    expect(await cachedPrincipal('d', 1000, after)).toBeNull(); // but nothing of it was kept
    expect(after).toHaveBeenCalledTimes(1);
  });

  it('a TTL of 0 never caches', async () => {
    const load = vi.fn(async () => ({ id: 'k' }));
    await cachedPrincipal('e', 0, load);
    await cachedPrincipal('e', 0, load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
