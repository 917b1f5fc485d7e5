import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createPartner } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { nodes, nodeSessions } from '@/lib/db/schema';
import { UnknownNodesError } from './errors';
import { closeStaleSessions, ingestEvents } from './ingest';
import { registerNode } from './nodes';
import { listNodes, nodeStatuses, partnerSummary, uptimes, uptimeSeries } from './queries';
import type { NodeEventInput } from './schema';
import { applyEvents, effectiveEnd, HOUR_MS, overlap, sortEvents } from './sessions';
import { generateFleet } from './simulate';

const TIMEOUT = 120_000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const H = HOUR_MS;
const T = NOW - 48 * H;

let d: Database;

async function partnerWith(nodeIds: string[]) {
  const org = await createOrganization(d.db, { name: 'o' });
  const partner = await createPartner(d.db, { orgId: org.id, name: 'p' });
  for (const id of nodeIds) await registerNode(d.db, { partnerId: partner.id, externalId: id });
  return { partnerId: partner.id, ctx: { partnerId: partner.id, now: NOW, heartbeatTimeoutMs: TIMEOUT } };
}
const ingest = (partnerId: string, events: NodeEventInput[]) =>
  ingestEvents(d.db, { partnerId, events, heartbeatTimeoutMs: TIMEOUT, now: NOW });
const ev = (type: NodeEventInput['type'], at: number, extra: Partial<NodeEventInput> = {}): NodeEventInput => ({
  partner_node_id: 'n1',
  type,
  at,
  ...extra,
});

/** The uptime of [start, end) worked out from all events at once: what the stored rollups must agree with. */
function bruteForce(events: NodeEventInput[], start: number, end: number) {
  const { closed, open } = applyEvents(null, sortEvents(events), TIMEOUT);
  let ms = closed.reduce((sum, s) => sum + overlap(s.start, s.end, start, end), 0);
  if (open) ms += overlap(open.start, effectiveEnd(open, NOW, TIMEOUT), start, end);
  return ms;
}

describe.each(engines)('ingestion and uptime on %s', (_name, open) => {
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ database: d, cleanup } = await open());
  });
  afterAll(() => cleanup());

  it('counts a session crossing hour edges, and an open session until now', async () => {
    const { partnerId, ctx } = await partnerWith(['n1']);
    await ingest(partnerId, [ev('connect', T + 30 * 60_000), ev('disconnect', T + 2 * H + 15 * 60_000), ev('connect', NOW - H)]);
    const range = { start: T, end: T + 3 * H };
    expect(await uptimes(d.db, ctx, { partnerNodeIds: ['n1'], range })).toEqual([{ uptime: 105 * 60_000, partner_node_id: 'n1' }]);
    // Only the first hour.
    expect((await uptimes(d.db, ctx, { partnerNodeIds: ['n1'], range: { start: T, end: T + H } }))[0]!.uptime).toBe(30 * 60_000);
    // Total: the closed session and the open one until now.
    expect((await uptimes(d.db, ctx, { partnerNodeIds: ['n1'], range: null }))[0]!.uptime).toBe(105 * 60_000 + H);
    expect(await nodeStatuses(d.db, ctx, { partnerNodeIds: ['n1'] })).toEqual([
      { connection_status: 'connected', total_uptime: 105 * 60_000 + H, partner_node_id: 'n1' },
    ]);
  });

  it('is idempotent on event_id, counting earnings once', async () => {
    const { partnerId, ctx } = await partnerWith(['n1']);
    const batch = [ev('connect', T, { event_id: 'a' }), ev('disconnect', T + H, { event_id: 'b', unit_shared: '1.5', usd_earned: '0.10' })];
    expect(await ingest(partnerId, batch)).toEqual({ accepted: 2 });
    expect(await ingest(partnerId, batch)).toEqual({ accepted: 0 });
    expect(await ingest(partnerId, [...batch, batch[1]!])).toEqual({ accepted: 0 });
    const { entries } = await listNodes(d.db, ctx, {});
    expect(entries[0]).toMatchObject({ time_connected: H, unit_shared: '1.5', usd_earned: '0.1', connection_status: 'disconnected' });
  });

  it('sums earnings exactly', async () => {
    const { partnerId, ctx } = await partnerWith(['n1']);
    await ingest(
      partnerId,
      Array.from({ length: 10 }, (_, i) => ev('heartbeat', T + i * 1000, { usd_earned: '0.1', unit_shared: '0.000001' })),
    );
    const { entries } = await listNodes(d.db, ctx, {});
    expect(entries[0]).toMatchObject({ usd_earned: '1', unit_shared: '0.00001' });
  });

  it('tolerates out-of-order delivery: late events rewrite the sessions they fall in', async () => {
    const { partnerId, ctx } = await partnerWith(['n1']);
    await ingest(partnerId, [ev('connect', T + 5 * H)]);
    await ingest(partnerId, [ev('disconnect', T + 6 * H)]);
    // Arrives late: an earlier session, and a disconnect inside it.
    await ingest(partnerId, [ev('connect', T + H), ev('disconnect', T + 2 * H)]);
    const full = { start: T, end: T + 10 * H };
    expect((await uptimes(d.db, ctx, { partnerNodeIds: ['n1'], range: full }))[0]!.uptime).toBe(2 * H);
    // A late disconnect splitting the later session.
    await ingest(partnerId, [ev('disconnect', T + 5 * H + 30 * 60_000), ev('connect', T + 5 * H + 45 * 60_000)]);
    expect((await uptimes(d.db, ctx, { partnerNodeIds: ['n1'], range: full }))[0]!.uptime).toBe(H + 30 * 60_000 + 15 * 60_000);
    const sessions = await d.db
      .select()
      .from(nodeSessions)
      .innerJoin(nodes, eq(nodes.id, nodeSessions.nodeId))
      .where(eq(nodes.partnerId, partnerId));
    expect(
      sessions.map((s) => [s.node_sessions.connectedAt - T, s.node_sessions.disconnectedAt! - T]).sort((a, b) => a[0]! - b[0]!),
    ).toEqual([
      [H, 2 * H],
      [5 * H, 5 * H + 30 * 60_000],
      [5 * H + 45 * 60_000, 6 * H],
    ]);
    expect((await nodeStatuses(d.db, ctx, { partnerNodeIds: ['n1'] }))[0]!.total_uptime).toBe(H + 45 * 60_000);
  });

  it('ends a heartbeat session at its last heartbeat once heartbeats stop', async () => {
    const { partnerId, ctx } = await partnerWith(['n1']);
    await ingest(partnerId, [ev('heartbeat', NOW - 10 * 60_000), ev('heartbeat', NOW - 9 * 60_000), ev('heartbeat', NOW - 8 * 60_000)]);
    expect(await nodeStatuses(d.db, ctx, { partnerNodeIds: ['n1'] })).toEqual([
      { connection_status: 'disconnected', total_uptime: 2 * 60_000, partner_node_id: 'n1' },
    ]);
    expect(await closeStaleSessions(d.db, { heartbeatTimeoutMs: TIMEOUT, now: NOW })).toBeGreaterThanOrEqual(1);
    // Stored now, with the same answer.
    expect(await nodeStatuses(d.db, ctx, { partnerNodeIds: ['n1'] })).toEqual([
      { connection_status: 'disconnected', total_uptime: 2 * 60_000, partner_node_id: 'n1' },
    ]);
    const [row] = await d.db.select({ total: nodes.totalUptimeMs }).from(nodes).where(eq(nodes.partnerId, partnerId));
    expect(row!.total).toBe(2 * 60_000);
  });

  it('refuses a batch naming an unknown node, storing none of it', async () => {
    const { partnerId, ctx } = await partnerWith(['n1']);
    await expect(ingest(partnerId, [ev('connect', T), { ...ev('connect', T), partner_node_id: 'ghost' }])).rejects.toBeInstanceOf(
      UnknownNodesError,
    );
    expect((await listNodes(d.db, ctx, {})).entries[0]!.time_connected).toBe(0);
  });

  it('agrees with a brute-force computation for random events delivered in random order and batches', async () => {
    const ids = ['r1', 'r2', 'r3'];
    const { partnerId, ctx } = await partnerWith(ids);
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const all: NodeEventInput[] = [];
    for (const id of ids) {
      for (let i = 0; i < 60; i++) {
        const type = (['connect', 'disconnect', 'heartbeat'] as const)[Math.floor(random() * 3)]!;
        all.push({ partner_node_id: id, type, at: T + Math.floor(random() * 47 * H), event_id: `${id}-${i}` });
      }
    }
    // Shuffle, then deliver in uneven batches, some twice.
    const shuffled = [...all].sort(() => random() - 0.5);
    for (let i = 0; i < shuffled.length;) {
      const n = 1 + Math.floor(random() * 25);
      const batch = shuffled.slice(i, i + n);
      await ingest(partnerId, batch);
      if (random() < 0.3) await ingest(partnerId, batch);
      i += n;
    }
    for (const id of ids) {
      const mine = all.filter((e) => e.partner_node_id === id);
      for (const [start, end] of [
        [T, T + 48 * H],
        [T + 3 * H, T + 17 * H],
        [T + 40 * H, T + 48 * H],
      ] as const) {
        expect((await uptimes(d.db, ctx, { partnerNodeIds: [id], range: { start, end } }))[0]!.uptime, `${id} ${start}`).toBe(
          bruteForce(mine, start, end),
        );
      }
      const series = await uptimeSeries(d.db, ctx, { partnerNodeId: id, range: { start: T, end: T + 48 * H }, bucket: 'hour' });
      expect(series.points).toHaveLength(48);
      series.points.forEach((p) => expect(p.uptime).toBe(bruteForce(mine, p.start, p.start + H)));
      expect((await nodeStatuses(d.db, ctx, { partnerNodeIds: [id] }))[0]!.total_uptime).toBe(bruteForce(mine, 0, NOW + 1));
    }
  });

  it('a read while sessions open and close is of one moment: never a session counted twice or dropped', async () => {
    // A writer opens and closes sessions one ingest at a time; readers read all the while. Each figure a read
    // returns must be that of a state between the last ingest done before it began and the one under way when
    // it ended (committed, maybe, before the writer hears so): a node's closed total read before a disconnect
    // and its open session read after it (none) dropped the session's uptime; the other way round counted it
    // twice.
    const { partnerId, ctx } = await partnerWith(['n1']);
    const range = { start: T - H, end: NOW + H };
    const SESSION = 500;
    const SESSIONS = 50;
    /** The state a figure stands for: 2k with k sessions closed, 2k + 1 with the (k+1)th open. */
    const stateOf = (uptime: number, connected?: boolean) => {
      if (uptime % SESSION === 0 && uptime / SESSION <= SESSIONS && connected !== true) return (2 * uptime) / SESSION;
      const k = (NOW - T - uptime) / SESSION; // open: k closed, and the open one since T + k s
      if (Number.isInteger(k) && k >= 0 && connected !== false) return 2 * k + 1;
      return Number.NaN;
    };
    let done = 0;
    let writing = true;
    const writer = (async () => {
      try {
        for (let k = 0; k < SESSIONS; k++) {
          await ingest(partnerId, [ev('connect', T + k * 1000)]);
          done = 2 * k + 1;
          await ingest(partnerId, [ev('disconnect', T + k * 1000 + SESSION)]);
          done = 2 * k + 2;
        }
      } finally {
        writing = false; // a failed ingest stops the readers too (the test then fails on it, not on a timeout)
      }
    })();
    const reads: Record<string, () => Promise<[number, boolean?]>> = {
      detail: async () => {
        const [s] = await nodeStatuses(d.db, ctx, { partnerNodeIds: ['n1'] });
        return [s!.total_uptime, s!.connection_status === 'connected'];
      },
      nodes: async () => {
        const [e] = (await listNodes(d.db, ctx, {})).entries;
        return [e!.time_connected, e!.connection_status === 'connected'];
      },
      total: async () => [(await uptimes(d.db, ctx, { partnerNodeIds: ['n1'], range: null }))[0]!.uptime],
      range: async () => [(await uptimes(d.db, ctx, { partnerNodeIds: ['n1'], range }))[0]!.uptime],
      summary: async () => {
        const s = await partnerSummary(d.db, ctx);
        return [s.total_uptime, s.connected === 1];
      },
      series: async () => {
        const s = await uptimeSeries(d.db, ctx, { partnerNodeId: 'n1', range, bucket: 'day' });
        return [s.points.reduce((sum, p) => sum + p.uptime, 0)];
      },
    };
    const wrong: string[] = [];
    await Promise.all(
      Object.entries(reads).map(async ([name, read]) => {
        while (writing) {
          const before = done;
          const [uptime, connected] = await read();
          const state = stateOf(uptime, connected);
          if (!(state >= before && state <= done + 1))
            wrong.push(`${name}: ${uptime} ms (${connected}) read between states ${before} and ${done}`);
        }
      }),
    );
    await writer;
    expect(wrong).toEqual([]);
  });

  it('reads at most one rollup row per hour of the range, however long the history', async () => {
    const { partnerId, ctx } = await partnerWith(['long']);
    const events: NodeEventInput[] = [];
    for (let day = 0; day < 200; day++) {
      events.push({ partner_node_id: 'long', type: 'connect', at: NOW - (200 - day) * 24 * H });
      events.push({ partner_node_id: 'long', type: 'disconnect', at: NOW - (200 - day) * 24 * H + 12 * H });
    }
    await ingest(partnerId, events);
    const [node] = await d.db.select({ id: nodes.id }).from(nodes).where(eq(nodes.partnerId, partnerId));
    const rows = await d.db.execute(
      sql`select count(*)::int as n from node_uptime_hourly where node_id = ${node!.id} and hour_start >= ${NOW - 14 * 24 * H} and hour_start < ${NOW}`,
    );
    expect((rows.rows[0] as { n: number }).n).toBeLessThanOrEqual(336);
    expect((await uptimes(d.db, ctx, { partnerNodeIds: ['long'], range: { start: NOW - 14 * 24 * H, end: NOW } }))[0]!.uptime).toBe(
      14 * 12 * H,
    );
  });

  it('the simulator makes a fleet with every behaviour, and the summary adds it up', async () => {
    const { fleet, events } = generateFleet({ nodes: 60, days: 7, seed: 3, now: NOW });
    expect(new Set(fleet.map((n) => n.profile))).toEqual(new Set(['steady', 'flapping', 'outage', 'never']));
    const { partnerId, ctx } = await partnerWith(fleet.map((n) => n.externalId));
    for (const e of events) if (e.length) await ingest(partnerId, e);
    const summary = await partnerSummary(d.db, ctx);
    const list = await listNodes(d.db, ctx, { limit: 500 });
    expect(summary.nodes).toBe(60);
    expect(summary.connected).toBe(list.entries.filter((e) => e.connection_status === 'connected').length);
    expect(summary.total_uptime).toBe(list.entries.reduce((s, e) => s + e.time_connected, 0));
    expect(list.entries.filter((e, i) => fleet[i]!.profile === 'never').every((e) => e.time_connected === 0)).toBe(true);
  });
});
