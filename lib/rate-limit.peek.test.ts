import { describe, expect, it } from 'vitest';
import { consume, peek } from './rate-limit';

describe('peek (in memory)', () => {
  it('tells whether a key has points left without using one', async () => {
    expect(await peek('peek-test', 'k', 2, 60)).toMatchObject({ allowed: true, remaining: 2, retryAfterS: 0 });
    expect(await peek('peek-test', 'k', 2, 60)).toMatchObject({ allowed: true, remaining: 2 });
    await consume('peek-test', 'k', 2, 60);
    expect(await peek('peek-test', 'k', 2, 60)).toMatchObject({ allowed: true, remaining: 1 });
    await consume('peek-test', 'k', 2, 60);
    const used = await peek('peek-test', 'k', 2, 60);
    expect(used).toMatchObject({ allowed: false, remaining: 0 });
    expect(used.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(await peek('peek-test', 'other', 2, 60)).toMatchObject({ allowed: true });
  });
});
