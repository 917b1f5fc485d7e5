import { sql } from 'drizzle-orm';
import { config } from '@/lib/config';
import type { Db } from '@/lib/db/client';
import type { ModelFacts } from '@/lib/db/schema';
import { publish } from './events';
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
    update providers set state = 'down', last_error = ${error.slice(0, 500)}
    where id = ${p.id} and state <> 'down'
      ${unrefreshedSince ? sql`and (checked_at is null or checked_at < ${unrefreshedSince})` : sql``}
    returning id`);
  if (!rows.rows.length) return false;
  await tellNode(db, p, 'disconnect', at);
  return true;
}

/**
 * An event for the provider's partner node (./events.ts). Ids derive from the provider and the time (a heartbeat's
 * time rounded to the probe interval), so that an event sent twice, by two leaders say, counts once.
 */
async function tellNode(db: Db, p: ProviderRecord, type: 'connect' | 'disconnect' | 'heartbeat', at: number) {
  if (!p.node) return;
  const c = config();
  const step = c.TRIAD_PROVIDER_PROBE_S * 1000;
  const time = type === 'heartbeat' ? at - (at % step) : at;
  await publish(db, 'node', {
    partnerId: p.node.partnerId,
    externalId: p.node.externalId,
    type,
    at: time,
    eventId: `provider:${p.id}:${type}:${time}`,
  });
}
