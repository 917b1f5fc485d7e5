import { describe, expect, it } from 'vitest';
import { bearerToken, displayPrefix, generateToken, hashToken, safeEqual, tokenMatches } from './tokens';

describe('tokens', () => {
  it('generates distinct 256-bit tokens with their readable prefix', () => {
    const a = generateToken('orgToken');
    const b = generateToken('orgToken');
    expect(a).toMatch(/^org_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(generateToken('apiKey')).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(generateToken('partnerSecret')).toMatch(/^pt_sec_[A-Za-z0-9_-]{43}$/);
  });

  it('stores a SHA-256 that matches only its own token', () => {
    const token = generateToken('apiKey');
    const hash = hashToken(token);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(token.slice(8));
    expect(tokenMatches(token, hash)).toBe(true);
    expect(tokenMatches(token + 'x', hash)).toBe(false);
    expect(tokenMatches(token, 'abcd')).toBe(false);
    // The stored hashes of existing credentials stay valid: plain SHA-256 of the UTF-8 text, in hex.
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('shows only the prefix and four characters', () => {
    expect(displayPrefix('sk_live_ABCDEFGH')).toBe('sk_live_ABCD');
    expect(displayPrefix('org_ABCDEFGH')).toBe('org_ABCD');
  });

  it('compares strings of any length', () => {
    expect(safeEqual('same', 'same')).toBe(true);
    expect(safeEqual('same', 'Same')).toBe(false);
    expect(safeEqual('short', 'much longer')).toBe(false);
  });

  it('reads the Bearer form and the bare form of Authorization', () => {
    expect(bearerToken('Bearer org_abc')).toBe('org_abc');
    expect(bearerToken('bearer   org_abc ')).toBe('org_abc');
    expect(bearerToken('org_abc')).toBe('org_abc');
    expect(bearerToken('Bearer')).toBe('Bearer');
    expect(bearerToken('Basic a b')).toBeNull();
    expect(bearerToken('')).toBeNull();
    expect(bearerToken(null)).toBeNull();
  });
});
