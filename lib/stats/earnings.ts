import { sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { writeBehind } from '@/lib/db/write-behind';
import { addDecimals } from '@/lib/core/decimal';
import { log } from '@/lib/log';
import { floorHour } from './sessions';

/*
 * What partner nodes earn by serving (design §10): each completion a provider linked to a node
 * served adds its total tokens to the node's `unit_shared` and what it earned (its cost at the
 * provider's prices less the network's fee, design §17) to its `usd_earned`, and counts in the node's
 * hourly served figures (the statements, ./statements.ts). Recorded once per completion (by the
 * provider that served it, never by one tried before), gathered for at most FLUSH_MS and written in
 * one transaction; sums are exact (decimal texts here, PostgreSQL's numeric there).
 */
const FLUSH_MS = 1000;
const MAX_ROWS = 2000;

/** What a node served in an hour: completions, their tokens, and what it earned (exact decimal text). */
export type ServedHour = { nodeId: number; hourStart: number; requests: number; tokens: number; usd: string };
const earnings = writeBehind<ServedHour>('node-earnings', {
  flushMs: FLUSH_MS,
  maxRows: MAX_ROWS,
  key: (r) => `${r.nodeId}\0${r.hourStart}`,
  merge(into, r) {
    into.requests += r.requests;
    into.tokens += r.tokens;
    into.usd = addDecimals(into.usd, r.usd);
  },
  write,
});

/** One completion served by a node's provider: `tokens` in all, `usd` earned. */
export function recordEarnings(db: Db, served: { nodeId: number; tokens: number; usd: string; at?: number }): void {
  earnings.record(db, {
    nodeId: served.nodeId,
    usd: served.usd,
    hourStart: floorHour(served.at ?? Date.now()),
    requests: 1,
    tokens: served.tokens,
  });
}

/** Writes what was recorded so far; resolves once it (and any write under way) is stored. */
export const flushEarnings = (): Promise<void> => earnings.flush();

async function write(db: Db, rows: ServedHour[]): Promise<void> {
  try {
    await db.transaction((tx) => addEarnings(tx, rows));
  } catch (e) {
    log.warn('node earnings not recorded', { rows: rows.length, error: (e as Error).message });
  }
}

/**
 * Adds served hours to their nodes' totals and hourly figures, in the caller's transaction (rows of the
 * same node and hour are summed here): the write behind above, and the demo's history (lib/admin/demo.ts).
 */
export async function addEarnings(db: Db, rows: ServedHour[]): Promise<void> {
  const data = JSON.stringify(
    rows.map((r) => ({ node_id: r.nodeId, usd: r.usd, hour_start: r.hourStart, requests: r.requests, tokens: r.tokens })),
  );
  await db.execute(sql`
    update nodes n set unit_shared = n.unit_shared + v.tokens, usd_earned = n.usd_earned + v.usd
    from (
      select node_id, sum(tokens) as tokens, sum(usd) as usd
      from jsonb_to_recordset(${data}::jsonb) as x(node_id bigint, usd numeric, hour_start bigint, requests integer, tokens bigint)
      group by node_id
    ) v
    where n.id = v.node_id`);
  await db.execute(sql`
    insert into node_served_hourly (node_id, hour_start, requests, tokens, usd)
    select node_id, hour_start, sum(requests), sum(tokens), sum(usd)
    from jsonb_to_recordset(${data}::jsonb) as x(node_id bigint, usd numeric, hour_start bigint, requests integer, tokens bigint)
    where exists (select 1 from nodes where nodes.id = x.node_id)
    group by node_id, hour_start
    on conflict (node_id, hour_start) do update set
      requests = node_served_hourly.requests + excluded.requests,
      tokens = node_served_hourly.tokens + excluded.tokens,
      usd = node_served_hourly.usd + excluded.usd`);
}
