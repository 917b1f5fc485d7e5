import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` every 100 ms until `ok` takes its value, and resolves with that value; throws after `ms`,
 * naming `what` and the last value seen. For what a test cannot await as an event (a state another
 * process reaches: a node connected, a row written behind the requests).
 */
export async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() - start > ms) throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(value)})`);
    await sleep(100);
  }
}
