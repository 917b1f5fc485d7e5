import { eq, min, sql } from 'drizzle-orm';
import { addDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { nodeServedHourly } from '@/lib/db/schema';
import { nodesByExternalId, type StatsContext } from './queries';
import type { Statement } from './schema';
import { DAY_MS, floorHour } from './sessions';

/*
 * A node's statement (design §17): what it served and earned per UTC day or calendar month, from its
 * hourly served figures (written in the same transaction as its `usd_earned`, ./earnings.ts, and kept
 * for as long as the node), so that the statement of its whole history adds up to `usd_earned`
 * exactly. A range is widened to whole periods; without one, the statement runs from the node's first
 * served hour to the period under way.
 */
export const MAX_STATEMENT_MS = 366 * DAY_MS;

type Bucket = 'day' | 'month';

/** The start of the period holding `t`, and the start of the next one. */
export function periodOf(t: number, bucket: Bucket): { start: number; end: number } {
  if (bucket === 'day') {
    const start = t - (((t % DAY_MS) + DAY_MS) % DAY_MS);
    return { start, end: start + DAY_MS };
  }
  const d = new Date(t);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

export async function nodeStatement(
  db: Db,
  ctx: StatsContext,
  q: { partnerNodeId: string; range: { start: number; end: number } | null; bucket: Bucket },
): Promise<Statement> {
  const [node] = await nodesByExternalId(db, ctx.partnerId, [q.partnerNodeId]);
  let from = q.range?.start;
  // The range's bounds come rounded down to the hour: one that ends in the hour under way covers it up to
  // now (else, in the first hour of a UTC day, today's period and what the node earned in it fell out).
  const to = q.range && q.range.end < floorHour(ctx.now) ? q.range.end : ctx.now;
  if (from === undefined) {
    const [first] = await db
      .select({ at: min(nodeServedHourly.hourStart) })
      .from(nodeServedHourly)
      .where(eq(nodeServedHourly.nodeId, node!.id));
    from = Math.min(first?.at ?? to, to);
  }
  const start = periodOf(from, q.bucket).start;
  const end = to > start ? periodOf(to - 1, q.bucket).end : periodOf(start, q.bucket).end;
  const periods: Statement['periods'] = [];
  for (let t = start; t < end; t = periodOf(t, q.bucket).end)
    periods.push({ start: t, end: periodOf(t, q.bucket).end, requests: 0, tokens: 0, usd_earned: '0' });
  // One statement, one snapshot: the hours and the node's total as one write left them (./earnings.ts
  // writes both in one transaction), so that a whole history's sum is its total even while it serves.
  const rows = (
    await db.execute<{ earned: string; hour_start: string | null; requests: number | null; tokens: string | null; usd: string | null }>(sql`
      select n.usd_earned::text as earned, h.hour_start::text, h.requests, h.tokens::text, h.usd::text
      from nodes n
      left join node_served_hourly h on h.node_id = n.id and h.hour_start >= ${start} and h.hour_start < ${end}
      where n.id = ${node!.id}
      order by h.hour_start`)
  ).rows;
  const total = { requests: 0, tokens: 0, usd_earned: '0' };
  let i = 0;
  for (const r of rows) {
    if (r.hour_start === null) continue;
    const hourStart = Number(r.hour_start);
    while (periods[i]!.end <= hourStart) i++;
    const p = periods[i]!;
    p.requests += Number(r.requests);
    p.tokens += Number(r.tokens);
    p.usd_earned = addDecimals(p.usd_earned, r.usd!);
    total.requests += Number(r.requests);
    total.tokens += Number(r.tokens);
    total.usd_earned = addDecimals(total.usd_earned, r.usd!);
  }
  return {
    partner_node_id: node!.externalId,
    bucket: q.bucket,
    started_at: start,
    ended_at: end,
    periods,
    total,
    usd_earned: addDecimals(rows[0]?.earned ?? node!.usdEarned, '0'),
  };
}
