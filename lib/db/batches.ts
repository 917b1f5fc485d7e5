import { quiet } from '@/lib/core/in-flight';
import { type Db, embeddedClient } from './client';

/*
 * Housekeeping over a table of any size (retention, roll-ups), in statements over at most `size` rows
 * each. On the embedded database a statement runs on the server's own thread and holds every request
 * meanwhile (150 000 expired entries of the request log, deleted 5 000 a statement back to back: the
 * requests' p99 376–460 ms and the slowest over a second, docs/benchmarks.md); so the statements are
 * small, and there each after the first waits for a moment with no request in flight
 * (lib/core/in-flight.ts), or runs after `latestMs` on a server that is never quiet — a request that
 * arrives during one still waits for it, but none waiting for its model server does. On PostgreSQL the
 * statements run in the database server's processes and follow one another at once: a cluster's
 * retention keeps pace with all its instances' writes.
 */

/** The longest a statement after the first waits for a quiet moment (at most ten statements a second under load). */
const BATCH_LATEST_MS = 100;

/**
 * Runs `step` (one statement on `db` over at most `size` rows, resolving to how many it touched) until
 * one touches fewer than `size`; resolves to the total.
 */
export async function inBatches(
  db: Db,
  size: number,
  step: (size: number) => Promise<number>,
  latestMs = BATCH_LATEST_MS,
): Promise<number> {
  const onServerThread = embeddedClient(db) !== null;
  let total = 0;
  for (let first = true; ; first = false) {
    if (!first && onServerThread) await quiet(latestMs);
    const n = await step(size);
    total += n;
    if (n < size) return total;
  }
}
