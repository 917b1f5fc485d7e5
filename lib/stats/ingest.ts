import { randomUUID } from 'node:crypto';
import { and, desc, eq, gte, inArray, isNull, lt, lte, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { nodeEvents, nodes, nodeSessions } from '@/lib/db/schema';
import { BadInputError } from '@/lib/core/input';
import { UnknownNodesError } from './errors';
import { addDecimals } from '@/lib/core/decimal';
import type { NodeEventInput } from './schema';
import { applyEvents, type ClosedSession, DAY_MS, floorHour, hourlyOverlaps, type OpenSession, sortEvents } from './sessions';

/*
 * Ingestion of node events (design §5): batched, idempotent on event_id, tolerant of
 * out-of-order delivery. A batch is one transaction of a few bulk statements. Events that come
 * after everything a node has seen are applied to its open session directly; an event from
 * before that replays the node's events from the session it falls in (rare, and bounded by
 * the sessions after it). Closed sessions feed the hourly rollups and the node's total.
 */

/** Events may be at most this far in the future (clock skew). */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

type NodeChange = { totalMs: number; unitShared: string; usdEarned: string; lastEventAt: number; ip?: string };

/** The writes a batch makes, gathered so that each kind is one bulk statement. */
class WritePlan {
  sessionUpdates: { id: number; end: number | null; lastHeartbeatAt: number | null }[] = [];
  sessionInserts: (typeof nodeSessions.$inferInsert)[] = [];
  rollups = new Map<string, { nodeId: number; hourStart: number; ms: number }>();
  nodeChanges = new Map<number, NodeChange>();
  /** USD the events reported earned, per node and hour: into the hourly served figures, which statements sum (design §17). */
  earnings = new Map<string, { nodeId: number; hourStart: number; usd: string }>();

  earned(nodeId: number, at: number, usd: string) {
    const hourStart = floorHour(at);
    const key = `${nodeId}:${hourStart}`;
    const e = this.earnings.get(key);
    if (e) e.usd = addDecimals(e.usd, usd);
    else this.earnings.set(key, { nodeId, hourStart, usd });
  }

  change(nodeId: number): NodeChange {
    let c = this.nodeChanges.get(nodeId);
    if (!c) this.nodeChanges.set(nodeId, (c = { totalMs: 0, unitShared: '0', usdEarned: '0', lastEventAt: 0 }));
    return c;
  }

  /** Counts a closed session (or, with sign -1, takes one back) in the rollups and the total. */
  count(nodeId: number, s: { start: number; end: number }, sign: 1 | -1 = 1) {
    for (const [hourStart, ms] of hourlyOverlaps(s.start, s.end)) {
      const key = `${nodeId}:${hourStart}`;
      const r = this.rollups.get(key) ?? { nodeId, hourStart, ms: 0 };
      r.ms += sign * ms;
      this.rollups.set(key, r);
    }
    this.change(nodeId).totalMs += sign * (s.end - s.start);
  }

  insertClosed(nodeId: number, s: ClosedSession) {
    this.sessionInserts.push({
      nodeId,
      connectedAt: s.start,
      disconnectedAt: s.end,
      openedBy: s.openedBy,
      lastHeartbeatAt: s.openedBy === 'heartbeat' ? s.end : null,
    });
    this.count(nodeId, s);
  }

  insertOpen(nodeId: number, s: OpenSession) {
    this.sessionInserts.push({
      nodeId,
      connectedAt: s.start,
      disconnectedAt: null,
      openedBy: s.openedBy,
      lastHeartbeatAt: s.lastHeartbeatAt,
    });
  }

  /*
   * Each kind of write is one statement whatever the batch size: the rows travel as one JSON
   * parameter, unpacked by jsonb_to_recordset (thousands of bind parameters cost more than the work).
   */
  async write(tx: Db) {
    if (this.sessionUpdates.length) {
      await tx.execute(sql`
        update node_sessions as s set disconnected_at = v.end_at, last_heartbeat_at = v.hb
        from jsonb_to_recordset(${json(this.sessionUpdates.map((r) => ({ id: r.id, end_at: r.end, hb: r.lastHeartbeatAt })))}::jsonb)
          as v(id bigint, end_at bigint, hb bigint)
        where s.id = v.id`);
    }
    if (this.sessionInserts.length) {
      await tx.execute(sql`
        insert into node_sessions (node_id, connected_at, disconnected_at, opened_by, last_heartbeat_at)
        select node_id, connected_at, disconnected_at, opened_by, last_heartbeat_at
        from jsonb_to_recordset(${json(
          this.sessionInserts.map((r) => ({
            node_id: r.nodeId,
            connected_at: r.connectedAt,
            disconnected_at: r.disconnectedAt,
            opened_by: r.openedBy,
            last_heartbeat_at: r.lastHeartbeatAt,
          })),
        )}::jsonb) as x(node_id bigint, connected_at bigint, disconnected_at bigint, opened_by text, last_heartbeat_at bigint)`);
    }
    const rollups = [...this.rollups.values()].filter((r) => r.ms !== 0);
    if (rollups.length) {
      await tx.execute(sql`
        insert into node_uptime_hourly (node_id, hour_start, uptime_ms)
        select node_id, hour_start, uptime_ms
        from jsonb_to_recordset(${json(rollups.map((r) => ({ node_id: r.nodeId, hour_start: r.hourStart, uptime_ms: r.ms })))}::jsonb)
          as x(node_id bigint, hour_start bigint, uptime_ms integer)
        on conflict (node_id, hour_start) do update set uptime_ms = node_uptime_hourly.uptime_ms + excluded.uptime_ms`);
    }
    if (this.earnings.size) {
      await tx.execute(sql`
        insert into node_served_hourly (node_id, hour_start, requests, tokens, usd)
        select node_id, hour_start, 0, 0, usd
        from jsonb_to_recordset(${json([...this.earnings.values()].map((e) => ({ node_id: e.nodeId, hour_start: e.hourStart, usd: e.usd })))}::jsonb)
          as x(node_id bigint, hour_start bigint, usd numeric)
        on conflict (node_id, hour_start) do update set usd = node_served_hourly.usd + excluded.usd`);
    }
    if (this.nodeChanges.size) {
      await tx.execute(sql`
        update nodes as n set
          total_uptime_ms = n.total_uptime_ms + v.total,
          unit_shared = n.unit_shared + v.unit,
          usd_earned = n.usd_earned + v.usd,
          last_event_at = greatest(coalesce(n.last_event_at, v.last_at), v.last_at),
          ip = coalesce(v.ip, n.ip)
        from jsonb_to_recordset(${json(
          [...this.nodeChanges].map(([id, c]) => ({
            id,
            total: c.totalMs,
            unit: c.unitShared,
            usd: c.usdEarned,
            last_at: c.lastEventAt,
            ip: c.ip ?? null,
          })),
        )}::jsonb) as v(id bigint, total bigint, unit numeric, usd numeric, last_at bigint, ip text)
        where n.id = v.id`);
    }
  }
}

const json = (rows: object[]) => JSON.stringify(rows);

type Accepted = NodeEventInput & { nodeId: number; eventId: string; seq: number };

/** Ingests one batch for one partner. Returns how many events were new (a repeated event_id counts once). */
export async function ingestEvents(
  db: Db,
  {
    partnerId,
    events,
    heartbeatTimeoutMs,
    retentionDays,
    now = Date.now(),
  }: { partnerId: string; events: NodeEventInput[]; heartbeatTimeoutMs: number; retentionDays?: number; now?: number },
): Promise<{ accepted: number }> {
  const late = events.findIndex((e) => e.at > now + FUTURE_TOLERANCE_MS);
  if (late >= 0) throw new BadInputError(`events.${late}.at: is in the future`, `events.${late}.at`);
  // Events older than the retention window may have been deleted (./retention.ts): one arriving now
  // could not be checked against them (idempotency) nor replayed with them, so it is refused.
  if (retentionDays !== undefined) {
    const old = events.findIndex((e) => e.at < now - retentionDays * DAY_MS);
    if (old >= 0) {
      throw new BadInputError(
        `events.${old}.at: is older than the retention window of ${retentionDays} days (TRIAD_EVENT_RETENTION_DAYS); events that old are no longer accepted`,
        `events.${old}.at`,
      );
    }
  }

  return db.transaction(async (tx) => {
    const externalIds = [...new Set(events.map((e) => e.partner_node_id))];
    const nodeRows = await tx
      .select({ id: nodes.id, externalId: nodes.externalId, lastEventAt: nodes.lastEventAt })
      .from(nodes)
      .where(and(eq(nodes.partnerId, partnerId), inArray(nodes.externalId, externalIds)))
      .orderBy(nodes.id)
      .for('update');
    const byExternal = new Map(nodeRows.map((n) => [n.externalId, n]));
    const unknown = externalIds.filter((id) => !byExternal.has(id));
    if (unknown.length) throw new UnknownNodesError(unknown, 'register them first');

    // Store the events; those whose (node, event_id) was stored before come back as conflicts.
    const seen = new Set<string>();
    const candidates: (NodeEventInput & { nodeId: number; eventId: string })[] = [];
    for (const e of events) {
      const nodeId = byExternal.get(e.partner_node_id)!.id;
      const eventId = e.event_id ?? `~${randomUUID()}`;
      const key = `${nodeId}\0${eventId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      candidates.push({ ...e, nodeId, eventId });
    }
    const stored = new Map<string, number>();
    const inserted = await tx.execute<{ node_id: string; event_id: string; seq: string }>(sql`
      insert into node_events (node_id, event_id, type, at)
      select node_id, event_id, type, at
      from jsonb_to_recordset(${json(candidates.map((e) => ({ node_id: e.nodeId, event_id: e.eventId, type: e.type, at: e.at })))}::jsonb)
        as x(node_id bigint, event_id text, type text, at bigint)
      on conflict do nothing
      returning node_id::text, event_id, seq::text`);
    for (const r of inserted.rows) stored.set(`${r.node_id}\0${r.event_id}`, Number(r.seq));
    const accepted: Accepted[] = candidates.flatMap((e) => {
      const seq = stored.get(`${e.nodeId}\0${e.eventId}`);
      return seq === undefined ? [] : [{ ...e, seq }];
    });
    if (!accepted.length) return { accepted: 0 };

    const perNode = new Map<number, Accepted[]>();
    for (const e of accepted) {
      const list = perNode.get(e.nodeId);
      if (list) list.push(e);
      else perNode.set(e.nodeId, [e]);
    }
    const openRows = await tx
      .select()
      .from(nodeSessions)
      .where(and(inArray(nodeSessions.nodeId, [...perNode.keys()]), isNull(nodeSessions.disconnectedAt)));
    const openByNode = new Map(openRows.map((s) => [s.nodeId, s]));

    const plan = new WritePlan();
    for (const node of nodeRows) {
      const evs = perNode.get(node.id);
      if (!evs) continue;
      const sorted = sortEvents(evs);
      if (node.lastEventAt === null || sorted[0]!.at > node.lastEventAt) {
        applyInOrder(plan, node.id, openByNode.get(node.id) ?? null, sorted, heartbeatTimeoutMs);
      } else {
        await replayFrom(tx, plan, node.id, sorted[0]!.at, heartbeatTimeoutMs);
      }
      const change = plan.change(node.id);
      change.lastEventAt = sorted.at(-1)!.at;
      for (const e of sorted) {
        if (e.unit_shared) change.unitShared = addDecimals(change.unitShared, e.unit_shared);
        if (e.usd_earned) {
          change.usdEarned = addDecimals(change.usdEarned, e.usd_earned);
          plan.earned(node.id, e.at, e.usd_earned);
        }
        if (e.ip) change.ip = e.ip;
      }
    }
    await plan.write(tx);
    return { accepted: accepted.length };
  });
}

/** The usual case: the events come after all the node has seen; continue its open session. */
function applyInOrder(
  plan: WritePlan,
  nodeId: number,
  openRow: typeof nodeSessions.$inferSelect | null,
  events: Accepted[],
  timeoutMs: number,
) {
  const state: OpenSession | null = openRow
    ? { start: openRow.connectedAt, openedBy: openRow.openedBy, lastHeartbeatAt: openRow.lastHeartbeatAt }
    : null;
  const { closed, open, initial } = applyEvents(state, events, timeoutMs);
  let newClosed = closed;
  if (openRow && initial === 'closed') {
    const first = closed[0]!;
    plan.sessionUpdates.push({
      id: openRow.id,
      end: first.end,
      lastHeartbeatAt: openRow.openedBy === 'heartbeat' ? first.end : openRow.lastHeartbeatAt,
    });
    plan.count(nodeId, first);
    newClosed = closed.slice(1);
  } else if (openRow && initial === 'kept' && open!.lastHeartbeatAt !== openRow.lastHeartbeatAt) {
    plan.sessionUpdates.push({ id: openRow.id, end: null, lastHeartbeatAt: open!.lastHeartbeatAt });
  }
  for (const s of newClosed) plan.insertClosed(nodeId, s);
  if (open && !(openRow && initial === 'kept')) plan.insertOpen(nodeId, open);
}

/**
 * An event from before what the node has seen: take back the sessions from the one it falls in
 * (or that a late heartbeat could extend) onwards, and replay the stored events from there.
 */
async function replayFrom(tx: Db, plan: WritePlan, nodeId: number, t0: number, timeoutMs: number) {
  const [prev] = await tx
    .select()
    .from(nodeSessions)
    .where(and(eq(nodeSessions.nodeId, nodeId), lte(nodeSessions.connectedAt, t0)))
    .orderBy(desc(nodeSessions.connectedAt))
    .limit(1);
  const checkpoint = prev && (prev.disconnectedAt === null || t0 <= prev.disconnectedAt + timeoutMs) ? prev.connectedAt : t0;
  const removed = await tx
    .delete(nodeSessions)
    .where(and(eq(nodeSessions.nodeId, nodeId), gte(nodeSessions.connectedAt, checkpoint)))
    .returning();
  for (const s of removed) if (s.disconnectedAt !== null) plan.count(nodeId, { start: s.connectedAt, end: s.disconnectedAt }, -1);
  const history = await tx
    .select({ type: nodeEvents.type, at: nodeEvents.at, seq: nodeEvents.seq })
    .from(nodeEvents)
    .where(and(eq(nodeEvents.nodeId, nodeId), gte(nodeEvents.at, checkpoint)));
  const { closed, open } = applyEvents(null, sortEvents(history), timeoutMs);
  for (const s of closed) plan.insertClosed(nodeId, s);
  if (open) plan.insertOpen(nodeId, open);
}

/**
 * Closes heartbeat sessions whose heartbeats stopped (at their last heartbeat), so that totals and
 * rollups include them. Queries already treat them as ended; this only makes it stored.
 */
export async function closeStaleSessions(
  db: Db,
  { heartbeatTimeoutMs, now = Date.now(), limit = 1000 }: { heartbeatTimeoutMs: number; now?: number; limit?: number },
) {
  return db.transaction(async (tx) => {
    const stale = await tx
      .select()
      .from(nodeSessions)
      .where(
        and(
          isNull(nodeSessions.disconnectedAt),
          eq(nodeSessions.openedBy, 'heartbeat'),
          lt(nodeSessions.lastHeartbeatAt, now - heartbeatTimeoutMs),
        ),
      )
      .limit(limit)
      .for('update', { skipLocked: true });
    const plan = new WritePlan();
    for (const s of stale) {
      const end = s.lastHeartbeatAt!;
      plan.sessionUpdates.push({ id: s.id, end, lastHeartbeatAt: end });
      plan.count(s.nodeId, { start: s.connectedAt, end });
      plan.change(s.nodeId).lastEventAt = end;
    }
    await plan.write(tx);
    return stale.length;
  });
}
