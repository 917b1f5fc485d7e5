import { and, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { flushLatency, percentile } from '@/lib/chat/latency';
import { flushUsage } from '@/lib/chat/usage';
import { addDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { invalidParameters } from '@/lib/errors/link';
import { apiKeys, chatLatencyHourly, chatUsage, organizations } from '@/lib/db/schema';

/*
 * Usage over time (design §11): per organization, per API key or per model, in hourly or daily UTC
 * buckets — completions, prompt and completion tokens, spend (USD, exact; design §17), errors (`error`: a reply that failed part-way;
 * `failed`: an error reply), latency p50/p95 and, for streams, time to first token. Counts come from
 * chat_usage (exact), latency from the hourly histograms (lib/chat/latency.ts; within 10 %).
 */
export type UsageSeriesQuery = {
  /** One organization's usage; null: the whole instance's (the administrator's view). */
  orgId: string | null;
  from: number;
  to: number;
  bucket: 'hour' | 'day';
  groupBy: 'key' | 'model' | 'organization';
  apiKeyId?: string;
  model?: string;
};

export type UsagePoint = {
  bucket_start: number;
  /** The API key's id, the model or the organization's id (as `group_by` says). */
  group: string;
  label: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** USD spent, exact decimal text. */
  cost: string;
  errors: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  ttft_p50_ms: number | null;
  ttft_p95_ms: number | null;
};

const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 };
const DAY = 86_400_000;

/** The range a query asks for (the last 7 days unless said): at most 31 days of hours or 400 of days. */
export function usageRange(q: { started_at?: number; ended_at?: number; bucket: 'hour' | 'day' }, now = Date.now()) {
  const to = q.ended_at ?? now;
  const from = q.started_at ?? to - 7 * DAY;
  const most = q.bucket === 'hour' ? 31 * DAY : 400 * DAY;
  if (from >= to) throw invalidParameters('started_at must be before ended_at');
  if (to - from > most) throw invalidParameters(`a range of ${q.bucket}ly buckets is at most ${most / DAY} days`);
  return { from, to };
}

export async function usageSeries(db: Db, q: UsageSeriesQuery): Promise<UsagePoint[]> {
  await Promise.all([flushUsage(), flushLatency()]);
  const size = BUCKET_MS[q.bucket];
  const keyWhere = [...(q.orgId ? [eq(apiKeys.orgId, q.orgId)] : []), ...(q.apiKeyId ? [eq(apiKeys.id, q.apiKeyId)] : [])];
  const keys = await db
    .select({ id: apiKeys.id, label: apiKeys.label, prefix: apiKeys.prefix, orgId: apiKeys.orgId, orgName: organizations.name })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.orgId))
    .where(and(...keyWhere));
  if (!keys.length) return [];
  const byKey = new Map(keys.map((k) => [k.id, k]));
  // The database groups by key (or model); keys are then gathered into their organization here.
  const groupOf = (dbGroup: string) => (q.groupBy === 'organization' ? (byKey.get(dbGroup)?.orgId ?? dbGroup) : dbGroup);
  const orgNames = new Map(keys.map((k) => [k.orgId, k.orgName]));
  const labelOf = (group: string) => {
    if (q.groupBy === 'model') return group;
    if (q.groupBy === 'organization') return orgNames.get(group) ?? group;
    const k = byKey.get(group);
    return k ? (k.label ? `${k.label} (${k.prefix}…)` : `${k.prefix}…`) : group;
  };
  // Every key of the instance is every usage row: no list of ids to send then.
  const scoped = q.orgId || q.apiKeyId;
  const ids = keys.map((k) => k.id);

  const start = sql`(floor(extract(epoch from ${chatUsage.createdAt}) * 1000 / ${size}) * ${size})::float8`;
  const group = q.groupBy === 'model' ? chatUsage.model : chatUsage.apiKeyId;
  const counts = await db
    .select({
      start,
      group: sql<string>`${group}`,
      requests: sql<number>`sum(${chatUsage.requests})::float8`,
      prompt: sql<number>`sum(${chatUsage.promptTokens})::float8`,
      completion: sql<number>`sum(${chatUsage.completionTokens})::float8`,
      cost: sql<string>`sum(${chatUsage.cost})::text`,
      errors: sql<number>`coalesce(sum(${chatUsage.requests}) filter (where ${chatUsage.outcome} in ('error', 'failed')), 0)::float8`,
    })
    .from(chatUsage)
    .where(
      and(
        ...(scoped ? [inArray(chatUsage.apiKeyId, ids)] : []),
        gte(chatUsage.createdAt, new Date(q.from)),
        lt(chatUsage.createdAt, new Date(q.to)),
        ...(q.model ? [eq(chatUsage.model, q.model)] : []),
      ),
    )
    .groupBy(sql`1`, sql`2`);

  const lStart = sql`(floor(${chatLatencyHourly.hourStart}::float8 / ${size}) * ${size})::float8`;
  const lGroup = q.groupBy === 'model' ? chatLatencyHourly.model : chatLatencyHourly.apiKeyId;
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
        ...(scoped ? [inArray(chatLatencyHourly.apiKeyId, ids)] : []),
        gte(chatLatencyHourly.hourStart, q.from - (q.from % 3_600_000)),
        lt(chatLatencyHourly.hourStart, q.to),
        ...(q.model ? [eq(chatLatencyHourly.model, q.model)] : []),
      ),
    )
    .groupBy(sql`1`, sql`2`, sql`3`, sql`4`);

  const points = new Map<string, UsagePoint>();
  for (const c of counts) {
    const s = Number(c.start);
    const g = groupOf(c.group);
    const key = `${s}|${g}`;
    const p = points.get(key) ?? {
      bucket_start: s,
      group: g,
      label: labelOf(g),
      requests: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost: '0',
      errors: 0,
      latency_p50_ms: null,
      latency_p95_ms: null,
      ttft_p50_ms: null,
      ttft_p95_ms: null,
    };
    p.requests += Number(c.requests);
    p.prompt_tokens += Number(c.prompt);
    p.completion_tokens += Number(c.completion);
    p.cost = addDecimals(p.cost, c.cost);
    p.errors += Number(c.errors);
    points.set(key, p);
  }
  const histograms = new Map<string, [number, number][]>();
  for (const h of hist) {
    const k = `${Number(h.start)}|${groupOf(h.group)}|${h.kind}`;
    const list = histograms.get(k) ?? [];
    list.push([h.bucket, Number(h.count)]);
    histograms.set(k, list);
  }
  for (const p of points.values()) {
    const of = (kind: string) => histograms.get(`${p.bucket_start}|${p.group}|${kind}`) ?? [];
    p.latency_p50_ms = percentile(of('total'), 50);
    p.latency_p95_ms = percentile(of('total'), 95);
    p.ttft_p50_ms = percentile(of('ttft'), 50);
    p.ttft_p95_ms = percentile(of('ttft'), 95);
  }
  return [...points.values()].sort((a, b) => a.bucket_start - b.bucket_start || a.group.localeCompare(b.group));
}
