import type { Db } from '@/lib/db/client';
import { ingestEvents } from './ingest';
import { registerNode } from './nodes';
import type { NodeEventInput } from './schema';
import { DAY_MS, HOUR_MS } from './sessions';

/*
 * A deterministic fleet simulator: nodes with steady, flapping, outage-prone and never-connected
 * behaviour, and earnings per session. It feeds the same ingestion code as the API, in batches.
 */

export type Profile = 'steady' | 'flapping' | 'outage' | 'never';
export type SimNode = { externalId: string; name: string; ip: string; profile: Profile };

/** mulberry32: a small seeded PRNG, so a seed always gives the same fleet. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROFILES: [Profile, number][] = [
  ['steady', 0.65],
  ['flapping', 0.15],
  ['outage', 0.13],
  ['never', 0.07],
];

/** Milli-units and micro-dollars as exact decimal text. */
const milli = (n: number) => `${Math.floor(n / 1000)}.${String(n % 1000).padStart(3, '0')}`;
const micro = (n: number) => `${Math.floor(n / 1e6)}.${String(n % 1e6).padStart(6, '0')}`;

export function generateFleet({
  nodes,
  days,
  seed = 1,
  now = Date.now(),
  prefix = 'node',
}: {
  nodes: number;
  days: number;
  seed?: number;
  now?: number;
  prefix?: string;
}) {
  const random = rng(seed);
  const between = (lo: number, hi: number) => lo + random() * (hi - lo);
  const width = Math.max(3, String(nodes).length);
  const fleet: SimNode[] = [];
  const events: NodeEventInput[][] = [];
  for (let i = 0; i < nodes; i++) {
    const externalId = `${prefix}-${String(i + 1).padStart(width, '0')}`;
    let pick = random();
    const profile = PROFILES.find(([, p]) => (pick -= p) < 0)?.[0] ?? 'steady';
    fleet.push({
      externalId,
      name: `${profile[0]!.toUpperCase()}${profile.slice(1)} node ${i + 1}`,
      ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      profile,
    });
    const mine: NodeEventInput[] = [];
    events.push(mine);
    if (profile === 'never') continue;
    const [sessionLo, sessionHi, gapLo, gapHi] =
      profile === 'flapping' ? [5 * 60_000, 90 * 60_000, 60_000, 30 * 60_000] : [6 * HOUR_MS, 4 * DAY_MS, 60_000, 45 * 60_000];
    const outageAt = profile === 'outage' ? now - between(0.2, 0.8) * days * DAY_MS : Infinity;
    let t = now - days * DAY_MS + between(0, 2 * HOUR_MS);
    let n = 0;
    const ratePerHour = Math.round(between(200, 1500)); // milli-units shared per hour connected
    while (t < now) {
      const length = between(sessionLo, sessionHi);
      const end = t + length;
      mine.push({ partner_node_id: externalId, type: 'connect', at: Math.floor(t), event_id: `${externalId}:${n++}`, ip: fleet[i]!.ip });
      if (end >= now && random() < 0.85) break; // still connected now
      const stop = Math.min(end, now - 1000);
      const units = Math.round(((stop - t) / HOUR_MS) * ratePerHour);
      mine.push({
        partner_node_id: externalId,
        type: 'disconnect',
        at: Math.floor(stop),
        event_id: `${externalId}:${n++}`,
        unit_shared: milli(units),
        usd_earned: micro(units * 12), // 0.012 USD a unit
      });
      let gap = between(gapLo, gapHi);
      if (stop < outageAt && stop + gap >= outageAt) gap = between(DAY_MS, 4 * DAY_MS);
      t = stop + gap;
    }
  }
  return { fleet, events };
}

/** Interleaves the nodes' event lists into batches, each node's events staying in time order. */
export function* batches(perNode: NodeEventInput[][], size = 1000): Generator<NodeEventInput[]> {
  const all = perNode.flat().sort((a, b) => a.at - b.at);
  for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
}

/**
 * Lets the server answer what waits (a health check during start-up's demo set-up) between batches:
 * the embedded database's WebAssembly runs on the server's thread, and a chain of awaited statements
 * alone never gives the event loop a turn.
 */
export const yieldToServer = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Registers a simulated fleet under a partner and ingests its history. */
export async function simulateFleet(
  db: Db,
  opts: {
    partnerId: string;
    nodes: number;
    days: number;
    seed?: number;
    now?: number;
    prefix?: string;
    heartbeatTimeoutMs: number;
    onProgress?: (done: number, total: number) => void;
  },
) {
  const { fleet, events } = generateFleet(opts);
  for (const n of fleet) await registerNode(db, { partnerId: opts.partnerId, externalId: n.externalId, name: n.name, ip: n.ip });
  const total = events.reduce((sum, e) => sum + e.length, 0);
  let done = 0;
  let accepted = 0;
  for (const batch of batches(events)) {
    await yieldToServer();
    accepted += (
      await ingestEvents(db, { partnerId: opts.partnerId, events: batch, heartbeatTimeoutMs: opts.heartbeatTimeoutMs, now: opts.now })
    ).accepted;
    done += batch.length;
    opts.onProgress?.(done, total);
  }
  return { partner_node_ids: fleet.map((n) => n.externalId), events: total, accepted };
}
