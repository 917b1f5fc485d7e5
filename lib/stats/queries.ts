import { and, asc, count, eq, gt, gte, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Db, Tx } from '@/lib/db/client';
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
 * Figures made of several statements (a node's hourly rollups and its open session, which one ingest changes
 * together) are read in one snapshot: under read committed an ingest landing between two statements counted a
 * session twice, or not at all.
 */
const inSnapshot = <T>(db: Db, read: (tx: Db) => Promise<T>): Promise<T> =>
  (db as Exclude<Db, Tx>).transaction(read, { isolationLevel: 'repeatable read', accessMode: 'read only' });

/** The partner's nodes by external id, in the order asked, each with its open session; unknown ids are a 400. */
export async function nodesByExternalId(db: Db, partnerId: string, externalIds: string[]): Promise<NodeWithOpen[]> {
  const rows = (
    await db
      .select(withOpen)
      .from(nodes)
      .leftJoin(nodeSessions, openSession)
      .where(and(eq(nodes.partnerId, partnerId), inArray(nodes.externalId, externalIds)))
  ).map(unpack);
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
  return inSnapshot(db, (tx) => rangeUptimes(tx, ctx, partnerNodeIds, range));
}

async function rangeUptimes(db: Db, ctx: StatsContext, partnerNodeIds: string[], range: Range) {
  const rows = await nodesByExternalId(db, ctx.partnerId, partnerNodeIds);
  const sums = await db
    .select({ nodeId: nodeUptimeHourly.nodeId, ms: sql<string>`sum(${nodeUptimeHourly.uptimeMs})` })
    .from(nodeUptimeHourly)
    .where(
      and(
        inArray(
          nodeUptimeHourly.nodeId,
          rows.map((n) => n.id),
        ),
        gte(nodeUptimeHourly.hourStart, range.start),
        lt(nodeUptimeHourly.hourStart, range.end),
      ),
    )
    .groupBy(nodeUptimeHourly.nodeId);
  const closed = new Map(sums.map((s) => [s.nodeId, Number(s.ms)]));
  return rows.map((n) => {
    const o = n.open;
    const live = o ? overlap(o.start, effectiveEnd(o, ctx.now, ctx.heartbeatTimeoutMs), range.start, range.end) : 0;
    return { uptime: (closed.get(n.id) ?? 0) + live, partner_node_id: n.externalId };
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
export function uptimeSeries(
  db: Db,
  ctx: StatsContext,
  q: { partnerNodeId: string; range: Range; bucket: 'hour' | 'day' },
): Promise<{
  partner_node_id: string;
  bucket_ms: number;
  started_at: number;
  ended_at: number;
  measured_at: number;
  points: SeriesPoint[];
}> {
  return inSnapshot(db, (tx) => series(tx, ctx, q));
}

async function series(
  db: Db,
  ctx: StatsContext,
  { partnerNodeId, range, bucket }: { partnerNodeId: string; range: Range; bucket: 'hour' | 'day' },
) {
  const [node] = await nodesByExternalId(db, ctx.partnerId, [partnerNodeId]);
  const size = bucket === 'hour' ? HOUR_MS : DAY_MS;
  // Day buckets are aligned to UTC midnight.
  const start = range.start - (range.start % size);
  const end = range.end;
  const points: SeriesPoint[] = [];
  for (let t = start; t < end; t += size) points.push({ start: t, uptime: 0, served: { requests: 0, tokens: 0, usd: '0' } });
  const index = (t: number) => Math.floor((t - start) / size);
  const rows = await db
    .select({ hourStart: nodeUptimeHourly.hourStart, ms: nodeUptimeHourly.uptimeMs })
    .from(nodeUptimeHourly)
    .where(and(eq(nodeUptimeHourly.nodeId, node!.id), gte(nodeUptimeHourly.hourStart, start), lt(nodeUptimeHourly.hourStart, end)));
  for (const r of rows) points[index(r.hourStart)]!.uptime += r.ms;
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
export const partnerSummary = (db: Db, ctx: StatsContext) => inSnapshot(db, (tx) => summary(tx, ctx));

async function summary(db: Db, ctx: StatsContext) {
  const [agg] = await db
    .select({
      nodes: count(),
      closedMs: sql<string>`coalesce(sum(${nodes.totalUptimeMs}), 0)`,
      unitShared: sql<string>`coalesce(sum(${nodes.unitShared}), 0)::text`,
      usdEarned: sql<string>`coalesce(sum(${nodes.usdEarned}), 0)::text`,
    })
    .from(nodes)
    .where(eq(nodes.partnerId, ctx.partnerId));
  const open = await db
    .select({ start: nodeSessions.connectedAt, openedBy: nodeSessions.openedBy, lastHeartbeatAt: nodeSessions.lastHeartbeatAt })
    .from(nodeSessions)
    .innerJoin(nodes, eq(nodes.id, nodeSessions.nodeId))
    .where(and(eq(nodes.partnerId, ctx.partnerId), isNull(nodeSessions.disconnectedAt)));
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
