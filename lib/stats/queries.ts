import { and, asc, count, eq, gt, gte, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { nodes, nodeServedHourly, nodeSessions, nodeUptimeHourly, partners } from '@/lib/db/schema';
import { decodeCursor, encodeCursor } from '@/lib/core/cursor';
import { UnknownNodesError } from './errors';
import { addDecimals } from '@/lib/core/decimal';
import type { NodeEntry, NodeStatus, SeriesPoint } from './schema';
import { DAY_MS, effectiveEnd, HOUR_MS, isConnected, type OpenSession, overlap, type Range } from './sessions';

/*
 * Read side of the statistics group. Uptime of a node in [start, end) = the hourly rollups of its
 * closed sessions in that range (at most one row per hour: 336 for 14 days) + the overlap of its
 * open session, if any. Total uptime = the stored total of closed sessions + the open session.
 */

type NodeRow = typeof nodes.$inferSelect;
/** What every statistics query knows: whose nodes, the time now, and when heartbeats count as stopped. */
export type StatsContext = { partnerId: string; now: number; heartbeatTimeoutMs: number };

/** A node with its open session, if any: read in one statement, so that its closed total and its open session agree. */
type NodeWithOpen = NodeRow & { open: OpenSession | undefined };

const withOpen = {
  node: nodes,
  open: { start: nodeSessions.connectedAt, openedBy: nodeSessions.openedBy, lastHeartbeatAt: nodeSessions.lastHeartbeatAt },
};
const openSession = and(eq(nodeSessions.nodeId, nodes.id), isNull(nodeSessions.disconnectedAt));
const unpack = (r: {
  node: NodeRow;
  open: { start: number; openedBy: OpenSession['openedBy']; lastHeartbeatAt: number | null } | null;
}): NodeWithOpen => ({
  ...r.node,
  open: r.open ?? undefined,
});

/**
 * The partner's nodes by external id, in the order asked, each with its open session (and, with `closed`, its
 * closed sessions' uptime in a range: the sum, or hour by hour); unknown ids are a 400. One statement, so one moment: under read committed an
 * ingest landing between two statements counted a session that had just closed twice, or not at all.
 */
export async function nodesByExternalId(db: Db, partnerId: string, externalIds: string[]): Promise<NodeWithOpen[]>;
export async function nodesByExternalId(
  db: Db,
  partnerId: string,
  externalIds: string[],
  closed: { range: Range; perHour?: boolean },
): Promise<(NodeWithOpen & { closedMs: number; hours: [number, number][] })[]>;
export async function nodesByExternalId(
  db: Db,
  partnerId: string,
  externalIds: string[],
  { range, perHour = false }: { range?: Range; perHour?: boolean } = {},
) {
  const inRange = range
    ? sql`${nodeUptimeHourly.nodeId} = ${nodes.id} and ${nodeUptimeHourly.hourStart} >= ${range.start} and ${nodeUptimeHourly.hourStart} < ${range.end}`
    : undefined;
  const rows = (
    await db
      .select({
        ...withOpen,
        closedMs:
          inRange && !perHour
            ? sql<string | null>`(select sum(${nodeUptimeHourly.uptimeMs}) from ${nodeUptimeHourly} where ${inRange})`
            : sql<null>`null`,
        hours:
          inRange && perHour
            ? sql<[number, number][] | null>`(select json_agg(json_build_array(${nodeUptimeHourly.hourStart}, ${nodeUptimeHourly.uptimeMs}))
                from ${nodeUptimeHourly} where ${inRange})`
            : sql<null>`null`,
      })
      .from(nodes)
      .leftJoin(nodeSessions, openSession)
      .where(and(eq(nodes.partnerId, partnerId), inArray(nodes.externalId, externalIds)))
  ).map((r) => ({ ...unpack(r), closedMs: Number(r.closedMs ?? 0), hours: r.hours ?? [] }));
  const byId = new Map(rows.map((r) => [r.externalId, r]));
  const unknown = externalIds.filter((id) => !byId.has(id));
  if (unknown.length) throw new UnknownNodesError(unknown);
  return externalIds.map((id) => byId.get(id)!);
}

function totalUptime({ totalUptimeMs, open }: NodeWithOpen, ctx: StatsContext): number {
  return totalUptimeMs + (open ? effectiveEnd(open, ctx.now, ctx.heartbeatTimeoutMs) - open.start : 0);
}

function status(open: OpenSession | undefined, ctx: StatsContext): 'connected' | 'disconnected' {
  return isConnected(open ?? null, ctx.now, ctx.heartbeatTimeoutMs) ? 'connected' : 'disconnected';
}

/** Whom a node serves (design §20): every organization once it, or its whole partner, was admitted; else its own only. */
export const networkOf = (partnerAdmittedAt: Date | null | undefined, nodeAdmittedAt: Date | null | undefined): 'admitted' | 'private' =>
  partnerAdmittedAt || nodeAdmittedAt ? 'admitted' : 'private';

/** Spec 4.2: the partner's nodes in creation order, `limit` a page, with the total count. */
export async function listNodes(
  db: Db,
  ctx: StatsContext,
  { partnerNodeId, after, limit = 50 }: { partnerNodeId?: string; after?: string; limit?: number },
): Promise<{ metadata: { after: string | null; total_count: number }; entries: NodeEntry[] }> {
  const scope = and(eq(nodes.partnerId, ctx.partnerId), partnerNodeId ? eq(nodes.externalId, partnerNodeId) : undefined);
  const [{ total }] = (await db.select({ total: count() }).from(nodes).where(scope)) as [{ total: number }];
  if (partnerNodeId && total === 0) throw new UnknownNodesError([partnerNodeId]);
  const rows = (
    await db
      .select(withOpen)
      .from(nodes)
      .leftJoin(nodeSessions, openSession)
      .where(and(scope, after ? gt(nodes.id, decodeCursor('n1', after)) : undefined))
      .orderBy(asc(nodes.id))
      .limit(limit + 1)
  ).map(unpack);
  const page = rows.slice(0, limit);
  // Admitted to the network on its own or with its whole partner (design §20); else private.
  const partner = page.length
    ? await db.query.partners.findFirst({ where: eq(partners.id, ctx.partnerId), columns: { admittedAt: true } })
    : undefined;
  return {
    metadata: { after: rows.length > limit ? encodeCursor('n1', page.at(-1)!.id) : null, total_count: Number(total) },
    entries: page.map((n) => ({
      ip: n.ip,
      external_id: n.externalId,
      time_connected: totalUptime(n, ctx),
      unit_shared: addDecimals('0', n.unitShared),
      usd_earned: addDecimals('0', n.usdEarned),
      public_id: n.publicId,
      public_name: n.publicName,
      connection_status: status(n.open, ctx),
      network: networkOf(partner?.admittedAt, n.admittedAt),
    })),
  };
}

/** Uptime of nodes in a rounded range, or their total uptime without one (interface 4.3, and `uptimes`). */
export async function uptimes(
  db: Db,
  ctx: StatsContext,
  { partnerNodeIds, range }: { partnerNodeIds: string[]; range: Range | null },
): Promise<{ uptime: number; partner_node_id: string }[]> {
  if (!range) {
    const rows = await nodesByExternalId(db, ctx.partnerId, partnerNodeIds);
    return rows.map((n) => ({ uptime: totalUptime(n, ctx), partner_node_id: n.externalId }));
  }
  const rows = await nodesByExternalId(db, ctx.partnerId, partnerNodeIds, { range });
  return rows.map((n) => {
    const o = n.open;
    const live = o ? overlap(o.start, effectiveEnd(o, ctx.now, ctx.heartbeatTimeoutMs), range.start, range.end) : 0;
    return { uptime: n.closedMs + live, partner_node_id: n.externalId };
  });
}

/** Connection status and total uptime of nodes, in the order asked (interface 4.4). */
export async function nodeStatuses(db: Db, ctx: StatsContext, { partnerNodeIds }: { partnerNodeIds: string[] }): Promise<NodeStatus[]> {
  const rows = await nodesByExternalId(db, ctx.partnerId, partnerNodeIds);
  return rows.map((n) => ({
    connection_status: status(n.open, ctx),
    total_uptime: totalUptime(n, ctx),
    partner_node_id: n.externalId,
  }));
}

/** Per-hour or per-day uptime of one node over a rounded range, for charts (beyond the interface). */
export async function uptimeSeries(
  db: Db,
  ctx: StatsContext,
  { partnerNodeId, range, bucket }: { partnerNodeId: string; range: Range; bucket: 'hour' | 'day' },
): Promise<{
  partner_node_id: string;
  bucket_ms: number;
  started_at: number;
  ended_at: number;
  measured_at: number;
  points: SeriesPoint[];
}> {
  const size = bucket === 'hour' ? HOUR_MS : DAY_MS;
  // Day buckets are aligned to UTC midnight.
  const start = range.start - (range.start % size);
  const end = range.end;
  const points: SeriesPoint[] = [];
  for (let t = start; t < end; t += size) points.push({ start: t, uptime: 0, served: { requests: 0, tokens: 0, usd: '0' } });
  const index = (t: number) => Math.floor((t - start) / size);
  // The node, its open session and its hours' uptime in one statement (one moment, as nodesByExternalId).
  const [node] = await nodesByExternalId(db, ctx.partnerId, [partnerNodeId], { range: { start, end }, perHour: true });
  for (const [hourStart, ms] of node!.hours) points[index(hourStart)]!.uptime += ms;
  const served = await db
    .select({
      hourStart: nodeServedHourly.hourStart,
      requests: nodeServedHourly.requests,
      tokens: nodeServedHourly.tokens,
      usd: nodeServedHourly.usd,
    })
    .from(nodeServedHourly)
    .where(and(eq(nodeServedHourly.nodeId, node!.id), gte(nodeServedHourly.hourStart, start), lt(nodeServedHourly.hourStart, end)));
  for (const r of served) {
    const s = points[index(r.hourStart)]!.served;
    s.requests += r.requests;
    s.tokens += r.tokens;
    s.usd = addDecimals(s.usd, r.usd);
  }
  const o = node!.open;
  if (o) {
    const oEnd = effectiveEnd(o, ctx.now, ctx.heartbeatTimeoutMs);
    for (const p of points) p.uptime += overlap(o.start, oEnd, p.start, p.start + size);
  }
  return { partner_node_id: node!.externalId, bucket_ms: size, started_at: start, ended_at: end, measured_at: ctx.now, points };
}

/** Fleet totals of a partner (beyond the interface; the dashboard's header). */
export async function partnerSummary(db: Db, ctx: StatsContext) {
  // The closed sessions' total and the open sessions in one statement (one moment, as nodesByExternalId).
  const [agg] = await db
    .select({
      nodes: count(),
      closedMs: sql<string>`coalesce(sum(${nodes.totalUptimeMs}), 0)`,
      unitShared: sql<string>`coalesce(sum(${nodes.unitShared}), 0)::text`,
      usdEarned: sql<string>`coalesce(sum(${nodes.usdEarned}), 0)::text`,
      open: sql<[number, OpenSession['openedBy'], number | null][] | null>`(
        select json_agg(json_build_array(s.connected_at, s.opened_by, s.last_heartbeat_at))
        from ${nodeSessions} s join ${nodes} m on m.id = s.node_id
        where m.partner_id = ${ctx.partnerId} and s.disconnected_at is null)`,
    })
    .from(nodes)
    .where(eq(nodes.partnerId, ctx.partnerId));
  const open = (agg!.open ?? []).map(([start, openedBy, lastHeartbeatAt]) => ({ start: Number(start), openedBy, lastHeartbeatAt }));
  let connected = 0;
  let liveMs = 0;
  for (const o of open) {
    if (isConnected(o, ctx.now, ctx.heartbeatTimeoutMs)) connected++;
    liveMs += effectiveEnd(o, ctx.now, ctx.heartbeatTimeoutMs) - o.start;
  }
  return {
    nodes: Number(agg!.nodes),
    connected,
    total_uptime: Number(agg!.closedMs) + liveMs,
    unit_shared: addDecimals('0', agg!.unitShared),
    usd_earned: addDecimals('0', agg!.usdEarned),
  };
}
