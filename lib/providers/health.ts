import { and, eq, inArray, sql } from 'drizzle-orm';
import { config } from '@/lib/config';
import { mendText } from '@/lib/core/text';
import type { Db } from '@/lib/db/client';
import { type ModelFacts, providers } from '@/lib/db/schema';
import { type NodeEvent, publish } from './events';
import type { ProviderRecord } from './store';

/*
 * A provider's health in the database (design §10): up on a successful probe, down after two failed
 * probes or three failed requests in a row. Every change is one conditional update, so that of two
 * instances seeing the same failure one makes the change; the one that makes it publishes the linked
 * partner node's `connect` / `disconnect` (./events.ts: statistics ingest it like POST /api/v1/node/events).
 */
export type State = 'unknown' | 'up' | 'down';
export const PROBE_FAILURES_DOWN = 2;

export type ProbeResult =
  { ok: true; latencyMs: number; models: string[]; facts?: Record<string, ModelFacts> } | { ok: false; latencyMs: number; error: string };

/** Stores a probe's result; returns the state it changed to, if it changed. */
export async function recordProbe(db: Db, p: ProviderRecord, r: ProbeResult, at: number): Promise<State | null> {
  const when = new Date(at);
  const rows = r.ok
    ? await db.execute<{ before: State; after: State }>(sql`
        update providers p set state = 'up', failed_probes = 0, last_error = null, latency_ms = ${r.latencyMs},
          checked_at = ${when}, catalogue = ${JSON.stringify(r.models)}::jsonb, catalogue_at = ${when},
          model_info = ${JSON.stringify(r.facts ?? {})}::jsonb
        from (select id, state from providers where id = ${p.id} for update) o
        where p.id = o.id
        returning o.state as before, p.state as after`)
    : await db.execute<{ before: State; after: State }>(sql`
        update providers p set failed_probes = p.failed_probes + 1, last_error = ${r.error.slice(0, 500)},
          latency_ms = null, checked_at = ${when},
          state = case when p.failed_probes + 1 >= ${PROBE_FAILURES_DOWN} then 'down' else p.state end
        from (select id, state from providers where id = ${p.id} for update) o
        where p.id = o.id
        returning o.state as before, p.state as after`);
  const row = rows.rows[0];
  if (!row) return null; // removed meanwhile
  const changed = row.before !== row.after ? row.after : null;
  if (changed) await tellNode(db, p, changed === 'up' ? 'connect' : 'disconnect', at);
  else if (r.ok) await tellNode(db, p, 'heartbeat', at);
  return changed;
}

/** Takes a provider out (failed requests, disabled, removed); true when this call made the change. */
export async function markDown(
  db: Db,
  p: ProviderRecord,
  error: string,
  at: number,
  /** Only if the row was not refreshed since then (checked_at older or none): a tunnel's that no instance holds. */
  unrefreshedSince?: Date,
): Promise<boolean> {
  const rows = await db.execute<{ id: string }>(sql`
    update providers set state = 'down', last_error = ${mendText(error.slice(0, 500))}
    where id = ${p.id} and state <> 'down'
      ${unrefreshedSince ? sql`and (checked_at is null or checked_at < ${unrefreshedSince})` : sql``}
    returning id`);
  if (!rows.rows.length) return false;
  await tellNode(db, p, 'disconnect', at);
  return true;
}

/** A tunnel its holder knows alive: the provider, and the models its agent said it serves. */
export type Alive = { id: string; models: string[] };

/**
 * Tunnels alive (their holder's heartbeat, lib/tunnel/): each enabled one up and checked at `at`, its
 * catalogue what its agent said; its node told `heartbeat`, or `connect` where it was not up. One
 * statement and one publication for them all, however many tunnels an instance holds. Returns the ids
 * that were not up before.
 */
export async function recordAlive(db: Db, alive: Alive[], at: number): Promise<string[]> {
  if (!alive.length) return [];
  const when = new Date(at);
  const rows = await db.execute<{ id: string; before: State; partner_id: string | null; external_id: string | null }>(sql`
    with x as (select * from jsonb_to_recordset(${JSON.stringify(alive)}::jsonb) as x(id text, models jsonb)),
      o as (
        select pr.id, pr.state, n.partner_id, n.external_id
        from providers pr join x on x.id = pr.id left join nodes n on n.id = pr.node_id
        where pr.enabled
        order by pr.id
        for update of pr)
    update providers p set state = 'up', failed_probes = 0, last_error = null, latency_ms = 0, checked_at = ${when},
      catalogue = x.models, catalogue_at = ${when}, model_info = '{}'::jsonb
    from o join x on x.id = o.id
    where p.id = o.id
    returning p.id, o.state as before, o.partner_id, o.external_id`);
  const events = rows.rows.flatMap((r) =>
    r.partner_id && r.external_id
      ? [nodeEvent(r.id, { partnerId: r.partner_id, externalId: r.external_id }, r.before === 'up' ? 'heartbeat' : 'connect', at)]
      : [],
  );
  if (events.length) await publish(db, 'node', events);
  return rows.rows.flatMap((r) => (r.before === 'up' ? [] : [r.id]));
}

/**
 * The holder's refresh of its tunnels between heartbeats (lib/tunnel/): those up are marked checked at
 * `at`, so that other instances and the prober know they live; one of them not up (taken out while its
 * holder could not refresh it: a stall longer than the prober's patience, say) comes back now, through
 * recordAlive, rather than at the next heartbeat. Returns the ids that came back.
 */
export async function refreshAlive(db: Db, alive: Alive[], at: number): Promise<string[]> {
  if (!alive.length) return [];
  const fresh = await db
    .update(providers)
    .set({ checkedAt: new Date(at) })
    .where(
      and(
        inArray(
          providers.id,
          alive.map((a) => a.id),
        ),
        eq(providers.state, 'up'),
      ),
    )
    .returning({ id: providers.id });
  if (fresh.length === alive.length) return [];
  const up = new Set(fresh.map((r) => r.id));
  return recordAlive(
    db,
    alive.filter((a) => !up.has(a.id)),
    at,
  );
}

/**
 * An event for a provider's partner node (./events.ts). Ids derive from the provider and the time (a heartbeat's
 * time rounded to the probe interval), so that an event sent twice, by two leaders say, counts once.
 */
function nodeEvent(providerId: string, node: { partnerId: string; externalId: string }, type: NodeEvent['type'], at: number): NodeEvent {
  const step = config().TRIAD_PROVIDER_PROBE_S * 1000;
  const time = type === 'heartbeat' ? at - (at % step) : at;
  return { partnerId: node.partnerId, externalId: node.externalId, type, at: time, eventId: `provider:${providerId}:${type}:${time}` };
}

async function tellNode(db: Db, p: ProviderRecord, type: NodeEvent['type'], at: number) {
  if (p.node) await publish(db, 'node', [nodeEvent(p.id, p.node, type, at)]);
}
