import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';

// Shared limits through the machine's Redis, under a key prefix of this test run's own.
const prefix = `triad-test-${randomBytes(6).toString('hex')}`;
process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
process.env.TRIAD_REDIS_PREFIX = prefix;
const { consume, peek } = await import('./rate-limit');
const { runShutdown } = await import('./shutdown');
const { default: Redis } = await import('ioredis');

const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
const reachable = await redis.connect().then(
  () => true,
  () => false,
);

afterAll(async () => {
  if (reachable) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
  await runShutdown();
});

describe.skipIf(!reachable)('rate limits in Redis', () => {
  it('N+k concurrent requests at limit N: exactly N allowed, counted in Redis', async () => {
    const results = await Promise.all(Array.from({ length: 13 }, () => consume('test', 'key-a', 10, 60)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    const refused = results.filter((r) => !r.allowed);
    expect(refused).toHaveLength(3);
    expect(refused.every((r) => r.remaining === 0 && r.retryAfterS >= 1 && r.retryAfterS <= 60)).toBe(true);
    const keys = await redis.keys(`${prefix}:rl:*`);
    expect(keys.length).toBe(1);
    expect(Number(await redis.get(keys[0]!))).toBe(13);
  });

  it('peek reads what is used without counting: another instance sees the failures counted here', async () => {
    expect(await peek('failures', 'alias-x', 3, 60)).toMatchObject({ allowed: true, remaining: 3 });
    for (let i = 0; i < 3; i++) await consume('failures', 'alias-x', 3, 60);
    // A second process's view: the same Redis keys, read by a limiter of its own.
    const before = await redis.get((await redis.keys(`${prefix}:rl:failures*`))[0]!);
    const seen = await peek('failures', 'alias-x', 3, 60);
    expect(seen).toMatchObject({ allowed: false, remaining: 0 });
    expect(seen.retryAfterS).toBeGreaterThanOrEqual(1);
    expect(await redis.get((await redis.keys(`${prefix}:rl:failures*`))[0]!)).toBe(before);
  });
});

if (!reachable) it.skip('Redis on 127.0.0.1:6379 is not reachable', () => {});
