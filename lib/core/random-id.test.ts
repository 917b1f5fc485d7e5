import { describe, expect, it } from 'vitest';
import { randomId } from './random-id';

describe('randomId', () => {
  it('gives base64url ids of the asked length, all different across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = randomId(12); // 2000 × 12 bytes: the 4 KB pool is refilled several times
      expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });

  it('refuses more than the pool holds', () => {
    expect(() => randomId(5000)).toThrow(RangeError);
  });
});
