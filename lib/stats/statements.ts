import { and, asc, eq, gte, lt, min } from 'drizzle-orm';
import { addDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { nodeServedHourly } from '@/lib/db/schema';
import { nodesByExternalId, type StatsContext } from './queries';
import type { Statement } from './schema';
import { DAY_MS } from './sessions';

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
  const to = q.range?.end ?? ctx.now;
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
  const rows = await db
    .select({
      hourStart: nodeServedHourly.hourStart,
      requests: nodeServedHourly.requests,
      tokens: nodeServedHourly.tokens,
      usd: nodeServedHourly.usd,
    })
    .from(nodeServedHourly)
    .where(and(eq(nodeServedHourly.nodeId, node!.id), gte(nodeServedHourly.hourStart, start), lt(nodeServedHourly.hourStart, end)))
    .orderBy(asc(nodeServedHourly.hourStart));
  const total = { requests: 0, tokens: 0, usd_earned: '0' };
  let i = 0;
  for (const r of rows) {
    while (periods[i]!.end <= r.hourStart) i++;
    const p = periods[i]!;
    p.requests += r.requests;
    p.tokens += r.tokens;
    p.usd_earned = addDecimals(p.usd_earned, r.usd);
    total.requests += r.requests;
    total.tokens += r.tokens;
    total.usd_earned = addDecimals(total.usd_earned, r.usd);
  }
  return {
    partner_node_id: node!.externalId,
    bucket: q.bucket,
    started_at: start,
    ended_at: end,
    periods,
    total,
    usd_earned: addDecimals(node!.usdEarned, '0'),
  };
}
