import { sql } from 'drizzle-orm';
import { shared } from '@/lib/core/runtime';
import type { Db } from '@/lib/db/client';
import { log } from '@/lib/log';
import { onShutdown } from '@/lib/shutdown';
import { floorHour } from '@/lib/stats/sessions';

/*
 * What partner nodes earn by serving (design §10): each completion a provider linked to a node
 * served adds its total tokens to the node's `unit_shared` and tokens × price / 1 000 to its
 * `usd_earned`, and counts in the node's hourly served figures. Recorded once per completion (by the
 * provider that served it, never by one tried before), gathered for at most FLUSH_MS and written in
 * one transaction; the arithmetic is PostgreSQL's numeric (exact: a product, never a division).
 */
const FLUSH_MS = 1000;
const MAX_ROWS = 2000;

type Row = { nodeId: number; price: string; hourStart: number; requests: number; tokens: number };
type Pending = { db: Db | null; rows: Map<string, Row>; timer: NodeJS.Timeout | null; writing: Promise<void> };
declare module '@/lib/core/runtime' {
  interface Runtime {
    earningsBuffer: Pending;
  }
}

function pending(): Pending {
  return shared('earningsBuffer', () => {
    onShutdown('node-earnings', () => flushEarnings());
    return { db: null, rows: new Map(), timer: null, writing: Promise.resolve() };
  });
}

/** One completion served by a node's provider: `tokens` in all, at `price` USD per 1 000 (null: none). */
export function recordEarnings(db: Db, served: { nodeId: number; price: string | null; tokens: number; at?: number }): void {
  const b = pending();
  b.db = db;
  const price = served.price ?? '0';
  const hourStart = floorHour(served.at ?? Date.now());
  const key = `${served.nodeId}\0${price}\0${hourStart}`;
  const row = b.rows.get(key);
  if (row) {
    row.requests++;
    row.tokens += served.tokens;
  } else b.rows.set(key, { nodeId: served.nodeId, price, hourStart, requests: 1, tokens: served.tokens });
  if (b.rows.size >= MAX_ROWS) void flushEarnings();
  else b.timer ??= setTimeout(() => void flushEarnings(), FLUSH_MS);
}

/** Writes what was recorded so far; resolves once it (and any write under way) is stored. */
export function flushEarnings(): Promise<void> {
  const b = pending();
  if (b.timer) clearTimeout(b.timer);
  b.timer = null;
  const rows = [...b.rows.values()];
  b.rows.clear();
  const db = b.db;
  if (rows.length && db) b.writing = b.writing.then(() => write(db, rows));
  return b.writing;
}

async function write(db: Db, rows: Row[]): Promise<void> {
  const data = JSON.stringify(
    rows.map((r) => ({ node_id: r.nodeId, price: r.price, hour_start: r.hourStart, requests: r.requests, tokens: r.tokens })),
  );
  try {
    await db.transaction(async (tx) => {
      await tx.execute(sql`
        update nodes n set unit_shared = n.unit_shared + v.tokens, usd_earned = n.usd_earned + v.usd
        from (
          select node_id, sum(tokens) as tokens, sum(tokens * price * 0.001) as usd
          from jsonb_to_recordset(${data}::jsonb) as x(node_id bigint, price numeric, hour_start bigint, requests integer, tokens bigint)
          group by node_id
        ) v
        where n.id = v.node_id`);
      await tx.execute(sql`
        insert into node_served_hourly (node_id, hour_start, requests, tokens, usd)
        select node_id, hour_start, sum(requests), sum(tokens), sum(tokens * price * 0.001)
        from jsonb_to_recordset(${data}::jsonb) as x(node_id bigint, price numeric, hour_start bigint, requests integer, tokens bigint)
        where exists (select 1 from nodes where nodes.id = x.node_id)
        group by node_id, hour_start
        on conflict (node_id, hour_start) do update set
          requests = node_served_hourly.requests + excluded.requests,
          tokens = node_served_hourly.tokens + excluded.tokens,
          usd = node_served_hourly.usd + excluded.usd`);
    });
  } catch (e) {
    log.warn('node earnings not recorded', { rows: rows.length, error: (e as Error).message });
  }
}
