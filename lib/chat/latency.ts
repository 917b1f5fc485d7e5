import { sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { chatLatencyHourly } from '@/lib/db/schema';
import { writeBehind } from '@/lib/db/write-behind';
import { log } from '@/lib/log';

/*
 * Chat latency, kept as hourly histograms per API key and model (design §11, the console's usage
 * pages): each completion adds one to the log bucket its time falls in, off the request path (batched
 * like usage, merged, one upsert a batch). Bucket i holds times up to BOUND(i) ms, each bound 10 %
 * above the last, so a percentile read back is within 10 % of the true one, over any range of hours.
 */
export type LatencyKind = 'total' | 'ttft';
const GROWTH = 1.1;
const MAX_BUCKET = 200; // 1.1^200 ms is far beyond any timeout

/** The bucket of a time in ms: the smallest i with ms ≤ bound(i). */
export function latencyBucket(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.min(MAX_BUCKET, Math.ceil(Math.log(ms) / Math.log(GROWTH) - 1e-9));
}
/** The upper bound of bucket i, in ms (what a percentile falling in it is reported as). */
export const bucketBound = (i: number): number => Math.round(GROWTH ** i);

type Row = { apiKeyId: string; model: string; hourStart: number; kind: LatencyKind; bucket: number; count: number };
const latency = writeBehind<Row>('chat-latency', {
  flushMs: 500,
  maxRows: 5000,
  // NUL never occurs in these (request bodies and headers with it are refused): a cheap, unambiguous key.
  key: (r) => `${r.apiKeyId}\0${r.model}\0${r.hourStart}\0${r.kind}\0${r.bucket}`,
  merge(into, r) {
    into.count += r.count;
  },
  write,
});

export function recordLatency(db: Db, r: { apiKeyId: string; model: string; kind: LatencyKind; ms: number; at?: number }): void {
  const at = r.at ?? Date.now();
  latency.record(db, {
    apiKeyId: r.apiKeyId,
    model: r.model,
    hourStart: at - (at % 3_600_000),
    kind: r.kind,
    bucket: latencyBucket(r.ms),
    count: 1,
  });
}

export const flushLatency = (): Promise<void> => latency.flush();

async function write(db: Db, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100) {
    if (i) await new Promise((r) => setImmediate(r));
    const part = rows.slice(i, i + 100);
    try {
      await db.execute(sql`
        insert into ${chatLatencyHourly} (api_key_id, model, hour_start, kind, bucket, count)
        select api_key_id, model, hour_start, kind, bucket, count
        from jsonb_to_recordset(${JSON.stringify(
          part.map((r) => ({
            api_key_id: r.apiKeyId,
            model: r.model,
            hour_start: r.hourStart,
            kind: r.kind,
            bucket: r.bucket,
            count: r.count,
          })),
        )}::jsonb) as x(api_key_id text, model text, hour_start bigint, kind text, bucket integer, count integer)
        on conflict (api_key_id, hour_start, model, kind, bucket) do update set count = ${chatLatencyHourly.count} + excluded.count`);
    } catch (e) {
      log.warn('chat latency not recorded', { rows: part.length, error: (e as Error).message });
    }
  }
}

/** The p-th percentile (0–100) of a histogram given as [bucket, count] pairs; null when empty. */
export function percentile(histogram: [number, number][], p: number): number | null {
  const total = histogram.reduce((n, [, c]) => n + c, 0);
  if (!total) return null;
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (const [bucket, count] of [...histogram].sort((a, b) => a[0] - b[0])) {
    seen += count;
    if (seen >= rank) return bucketBound(bucket);
  }
  return null;
}
