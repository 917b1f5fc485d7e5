import { describe, expect, it } from 'vitest';
import { fromDateTimeLocal, randomSecret, relativeExpiry, toDateTimeLocal } from './format';

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
