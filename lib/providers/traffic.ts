import { gte, lt, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { providerTrafficHourly } from '@/lib/db/schema';
import { writeBehind } from '@/lib/db/write-behind';
import { log } from '@/lib/log';

/*
 * Attempts on each provider per hour, counted by every instance and written behind the request path
 * (like chat usage): what the Providers page shows as each provider's share of the recent traffic and
 * its error rate. An attempt is `ok` when the provider's first byte came, `failed` when it failed
 * before (a refusal, a timeout, a connection error) and the request was tried elsewhere or refused.
 */
const HOUR_MS = 3_600_000;
type Row = { providerId: string; hourStart: number; ok: number; failed: number };

const traffic = writeBehind<Row>('provider-traffic', {
  flushMs: 1000,
  maxRows: 1000,
  key: (r) => `${r.providerId}\0${r.hourStart}`,
  merge(into, r) {
    into.ok += r.ok;
    into.failed += r.failed;
  },
  write,
});

export function recordAttempt(db: Db, providerId: string, ok: boolean, now = Date.now()): void {
  traffic.record(db, { providerId, hourStart: now - (now % HOUR_MS), ok: ok ? 1 : 0, failed: ok ? 0 : 1 });
}

export const flushTraffic = (): Promise<void> => traffic.flush();

async function write(db: Db, rows: Row[]): Promise<void> {
  try {
    await db.execute(sql`
      insert into ${providerTrafficHourly} (provider_id, hour_start, ok, failed)
      select x.provider_id, x.hour_start, x.ok, x.failed
      from jsonb_to_recordset(${JSON.stringify(
        rows.map((r) => ({ provider_id: r.providerId, hour_start: r.hourStart, ok: r.ok, failed: r.failed })),
      )}::jsonb) as x(provider_id text, hour_start bigint, ok integer, failed integer)
      -- A provider removed meanwhile: its attempts go with it.
      where exists (select 1 from providers p where p.id = x.provider_id)
      on conflict (provider_id, hour_start) do update
        set ok = provider_traffic_hourly.ok + excluded.ok, failed = provider_traffic_hourly.failed + excluded.failed`);
  } catch (e) {
    log.warn('provider traffic not recorded', { rows: rows.length, error: (e as Error).message });
  }
}

export type Traffic = { ok: number; failed: number };

/** Each provider's attempts over the last `hours` hours (the hour under way included), by provider id. */
export async function recentTraffic(db: Db, hours = 24, now = Date.now()): Promise<Map<string, Traffic>> {
  await flushTraffic();
  const since = now - (now % HOUR_MS) - (hours - 1) * HOUR_MS;
  const rows = await db
    .select({
      providerId: providerTrafficHourly.providerId,
      ok: sql<string>`sum(${providerTrafficHourly.ok})`,
      failed: sql<string>`sum(${providerTrafficHourly.failed})`,
    })
    .from(providerTrafficHourly)
    .where(gte(providerTrafficHourly.hourStart, since))
    .groupBy(providerTrafficHourly.providerId);
  return new Map(rows.map((r) => [r.providerId, { ok: Number(r.ok), failed: Number(r.failed) }]));
}

/** Drops hours older than `days` days; how many rows went. */
export async function deleteOldTraffic(db: Db, days: number, now = Date.now()): Promise<number> {
  const rows = await db
    .delete(providerTrafficHourly)
    .where(lt(providerTrafficHourly.hourStart, now - days * 24 * HOUR_MS))
    .returning({ id: providerTrafficHourly.providerId });
  return rows.length;
}
