import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';

// A Redis that is not there: a port that was free a moment ago.
const probe = net.createServer().listen(0, '127.0.0.1');
await new Promise((r) => probe.once('listening', r));
const port = (probe.address() as net.AddressInfo).port;
await new Promise((r) => probe.close(r));
process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
process.env.TRIAD_LOG_LEVEL = 'silent';
const { consume } = await import('./rate-limit');
const { runShutdown } = await import('./shutdown');
afterAll(() => runShutdown());

describe('rate limits with Redis down', () => {
  it('fall back to the in-memory insurance limiter: no error, the limit still holds', async () => {
    const results = await Promise.all(Array.from({ length: 7 }, () => consume('test', 'key-b', 5, 60)));
    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    expect(results.filter((r) => !r.allowed)).toHaveLength(2);
  });
});
