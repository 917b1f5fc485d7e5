import { and, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { flushLatency, percentile } from '@/lib/chat/latency';
import { flushUsage } from '@/lib/chat/usage';
import type { Db } from '@/lib/db/client';
import { apiKeys, chatLatencyHourly, chatUsage } from '@/lib/db/schema';

/*
 * Usage over time (design §11): per organization, per API key or per model, in hourly or daily UTC
 * buckets — completions, prompt and completion tokens, errors (`error`: a reply that failed part-way;
 * `failed`: an error reply), latency p50/p95 and, for streams, time to first token. Counts come from
 * chat_usage (exact), latency from the hourly histograms (lib/chat/latency.ts; within 10 %).
 */
export type UsageSeriesQuery = {
  orgId: string;
  from: number;
  to: number;
  bucket: 'hour' | 'day';
  groupBy: 'key' | 'model';
  apiKeyId?: string;
  model?: string;
};

export type UsagePoint = {
  bucket_start: number;
  /** The API key's id (group_by key) or the model (group_by model). */
  group: string;
  label: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  errors: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
};

const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 };

export async function usageSeries(db: Db, q: UsageSeriesQuery): Promise<UsagePoint[]> {
  await Promise.all([flushUsage(), flushLatency()]);
  const size = BUCKET_MS[q.bucket];
  const keys = await db
    .select({ id: apiKeys.id, label: apiKeys.label, prefix: apiKeys.prefix })
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, q.orgId), ...(q.apiKeyId ? [eq(apiKeys.id, q.apiKeyId)] : [])));
  if (!keys.length) return [];
  const ids = keys.map((k) => k.id);
  const names = new Map(keys.map((k) => [k.id, k.label ? `${k.label} (${k.prefix}…)` : `${k.prefix}…`]));

  const start = sql`(floor(extract(epoch from ${chatUsage.createdAt}) * 1000 / ${size}) * ${size})::float8`;
  const group = q.groupBy === 'key' ? chatUsage.apiKeyId : chatUsage.model;
  const where: SQL[] = [
    inArray(chatUsage.apiKeyId, ids),
    gte(chatUsage.createdAt, new Date(q.from)),
    lt(chatUsage.createdAt, new Date(q.to)),
    ...(q.model ? [eq(chatUsage.model, q.model)] : []),
  ];
  const counts = await db
    .select({
      start,
      group: sql<string>`${group}`,
      requests: sql<number>`sum(${chatUsage.requests})::float8`,
      prompt: sql<number>`sum(${chatUsage.promptTokens})::float8`,
      completion: sql<number>`sum(${chatUsage.completionTokens})::float8`,
      errors: sql<number>`coalesce(sum(${chatUsage.requests}) filter (where ${chatUsage.outcome} in ('error', 'failed')), 0)::float8`,
    })
    .from(chatUsage)
    .where(and(...where))
    .groupBy(sql`1`, sql`2`)
    .orderBy(sql`1`, sql`2`);

  const lStart = sql`(floor(${chatLatencyHourly.hourStart}::float8 / ${size}) * ${size})::float8`;
  const lGroup = q.groupBy === 'key' ? chatLatencyHourly.apiKeyId : chatLatencyHourly.model;
  const hist = await db
    .select({
      start: lStart,
      group: sql<string>`${lGroup}`,
      kind: chatLatencyHourly.kind,
      bucket: chatLatencyHourly.bucket,
      count: sql<number>`sum(${chatLatencyHourly.count})::float8`,
    })
    .from(chatLatencyHourly)
    .where(
      and(
        inArray(chatLatencyHourly.apiKeyId, ids),
        gte(chatLatencyHourly.hourStart, q.from - (q.from % 3_600_000)),
        lt(chatLatencyHourly.hourStart, q.to),
        ...(q.model ? [eq(chatLatencyHourly.model, q.model)] : []),
      ),
    )
    .groupBy(sql`1`, sql`2`, sql`3`, sql`4`);
  const histograms = new Map<string, [number, number][]>();
  for (const h of hist) {
    const k = `${Number(h.start)}|${h.group}|${h.kind}`;
    const list = histograms.get(k) ?? [];
    list.push([h.bucket, Number(h.count)]);
    histograms.set(k, list);
  }
  const pct = (startMs: number, g: string, kind: string, p: number) => percentile(histograms.get(`${startMs}|${g}|${kind}`) ?? [], p);

  return counts.map((c) => {
    const s = Number(c.start);
    return {
      bucket_start: s,
      group: c.group,
      label: q.groupBy === 'key' ? (names.get(c.group) ?? c.group) : c.group,
      requests: Number(c.requests),
      prompt_tokens: Number(c.prompt),
      completion_tokens: Number(c.completion),
      errors: Number(c.errors),
      latency_p50_ms: pct(s, c.group, 'total', 50),
      latency_p95_ms: pct(s, c.group, 'total', 95),
      ttft_p50_ms: pct(s, c.group, 'ttft', 50),
      ttft_p95_ms: pct(s, c.group, 'ttft', 95),
    };
  });
}
