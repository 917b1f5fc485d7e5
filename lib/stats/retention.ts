import { sql } from 'drizzle-orm';
import { inBatches } from '@/lib/db/batches';
import type { Db } from '@/lib/db/client';
import { DAY_MS } from './sessions';

/*
 * Bounded growth of node events (design §12). An event is folded into its node's sessions, hourly
 * uptime and totals when it is ingested; the event itself is kept only for idempotency (event_id) and
 * for replaying a late event. Events older than the retention window are deleted, except those a
 * replay may still need: every event from the start of a session that a late event inside the window
 * could fall in or extend (open, or ended within a heartbeat timeout of the window's start). Events
 * older than the window are refused at ingestion, so neither need can arise for the deleted ones.
 * Small batches, each its own statement at a quiet moment (lib/db/batches.ts), so that the embedded
 * database never holds requests up long.
 */
export function deleteOldEvents(
  db: Db,
  {
    retentionDays,
    heartbeatTimeoutMs,
    now = Date.now(),
    batch = 1000,
  }: { retentionDays: number; heartbeatTimeoutMs: number; now?: number; batch?: number },
): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  return inBatches(db, batch, async (size) => {
    const { rows } = await db.execute<{ node_id: string }>(sql`
      delete from node_events e
      using (
        select o.node_id, o.event_id from node_events o
        where o.at < ${cutoff}
          and o.at < coalesce(
            (select min(s.connected_at) from node_sessions s
             where s.node_id = o.node_id and (s.disconnected_at is null or s.disconnected_at >= ${cutoff - heartbeatTimeoutMs})),
            ${cutoff})
        limit ${size}
      ) old
      where e.node_id = old.node_id and e.event_id = old.event_id
      returning e.node_id`);
    return rows.length;
  });
}
