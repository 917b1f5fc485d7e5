import { and, eq, ne, sql } from 'drizzle-orm';
import { inBatches } from '@/lib/db/batches';
import type { Db } from '@/lib/db/client';
import { chatUsage } from '@/lib/db/schema';
import { writeBehind } from '@/lib/db/write-behind';
import { addDecimals } from '@/lib/core/decimal';
import { log } from '@/lib/log';

/*
 * Usage is written in batches (every 500 ms), off the request path. Within a batch, completions
 * alike (same API key, model, streamed or not, outcome and platform) make one row that counts them
 * (`requests`) and sums their tokens, so a busy key costs a row a batch, not a row a completion.
 * The embedded database runs on the server's own thread and a statement holds up every request
 * while it runs: each carries its rows as one JSON parameter, none carries more than STATEMENT_ROWS,
 * and the server answers requests between them. A clean shutdown flushes what is left; a crash can
 * lose the last half second of usage (never a reply).
 */
export type UsageRecord = {
  apiKeyId: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** USD, exact decimal text. */
  cost: string;
  stream: boolean;
  outcome: string;
  platform: string | null;
};
type Row = UsageRecord & { requests: number };
const FLUSH_MS = 500;
const STATEMENT_ROWS = 50;
/** Past this many distinct rows waiting a flush starts at once (bounds memory when writes lag). */
const MAX_ROWS = 5000;
const usage = writeBehind<Row>('chat-usage', {
  flushMs: FLUSH_MS,
  maxRows: MAX_ROWS,
  // NUL never occurs in these (request bodies and headers with it are refused): a cheap, unambiguous key.
  key: (r) => `${r.apiKeyId}\0${r.model}\0${r.stream}\0${r.outcome}\0${r.platform ?? '\u0001'}`,
  merge(into, r) {
    into.requests += r.requests;
    into.promptTokens += r.promptTokens;
    into.completionTokens += r.completionTokens;
    into.cost = addDecimals(into.cost, r.cost);
  },
  write,
});

export function recordUsage(db: Db, record: UsageRecord): void {
  usage.record(db, { ...record, requests: 1 });
}

/** Writes all usage recorded so far; resolves once it (and any flush already under way) is stored. */
export const flushUsage = (): Promise<void> => usage.flush();

async function write(db: Db, rows: Row[]): Promise<void> {
  const started = performance.now();
  for (let i = 0; i < rows.length; i += STATEMENT_ROWS) {
    if (i) await new Promise((r) => setImmediate(r)); // let waiting requests run
    const part = rows.slice(i, i + STATEMENT_ROWS);
    try {
      await db.execute(sql`
        insert into ${chatUsage} (api_key_id, model, requests, prompt_tokens, completion_tokens, cost, stream, outcome, platform)
        select api_key_id, model, requests, prompt_tokens, completion_tokens, cost, stream, outcome, platform
        from jsonb_to_recordset(${JSON.stringify(
          part.map((r) => ({
            api_key_id: r.apiKeyId,
            model: r.model,
            requests: r.requests,
            prompt_tokens: r.promptTokens,
            completion_tokens: r.completionTokens,
            cost: r.cost,
            stream: r.stream,
            outcome: r.outcome,
            platform: r.platform,
          })),
        )}::jsonb)
          as x(api_key_id text, model text, requests integer, prompt_tokens integer, completion_tokens integer, cost numeric, stream boolean, outcome text, platform text)`);
    } catch (e) {
      log.warn('chat usage not recorded', {
        rows: part.length,
        requests: part.reduce((n, r) => n + r.requests, 0),
        error: (e as Error).message,
      });
    }
  }
  log.debug('chat usage recorded', { rows: rows.length, ms: Math.round((performance.now() - started) * 10) / 10 });
}

/** What one API key has used, per model (flushes pending records first). */
export async function usageByModel(db: Db, apiKeyId: string) {
  await flushUsage();
  return (
    db
      .select({
        model: chatUsage.model,
        requests: sql<number>`coalesce(sum(${chatUsage.requests}), 0)::float8`,
        prompt_tokens: sql<number>`coalesce(sum(${chatUsage.promptTokens}), 0)::float8`,
        completion_tokens: sql<number>`coalesce(sum(${chatUsage.completionTokens}), 0)::float8`,
      })
      .from(chatUsage)
      // Completions served (one that failed part-way included); error replies (`failed`) are not.
      .where(and(eq(chatUsage.apiKeyId, apiKeyId), ne(chatUsage.outcome, 'failed')))
      .groupBy(chatUsage.model)
      .orderBy(chatUsage.model)
  );
}

/**
 * Bounded growth of usage (design §12): rows older than `olderThanDays` are rolled up into one row per
 * kind of completion (key, model, streamed or not, outcome, platform) and hour, stamped with the hour.
 * Totals are unchanged. Only hours with more than one row of a kind are rewritten, so that a second
 * run changes nothing; a few hundred groups a statement, at quiet moments (lib/db/batches.ts).
 */
export function rollUpUsage(
  db: Db,
  { olderThanDays, now = Date.now(), batch = 200 }: { olderThanDays: number; now?: number; batch?: number },
): Promise<number> {
  const cutoff = new Date(now - olderThanDays * 86_400_000);
  return inBatches(db, batch, async (size) => {
    const { rows } = await db.execute<{ n: number }>(sql`
      with groups as (
        select api_key_id, model, stream, outcome, platform, date_trunc('hour', created_at) as hour
        from ${chatUsage}
        where created_at < ${cutoff}
        group by 1, 2, 3, 4, 5, 6
        having count(*) > 1
        limit ${size}
      ), gone as (
        delete from ${chatUsage} u using groups g
        where u.api_key_id = g.api_key_id and u.model = g.model and u.stream = g.stream and u.outcome = g.outcome
          and u.platform is not distinct from g.platform and date_trunc('hour', u.created_at) = g.hour and u.created_at < ${cutoff}
        returning u.*
      ), made as (
        insert into ${chatUsage} (api_key_id, model, requests, prompt_tokens, completion_tokens, stream, outcome, platform, created_at)
        select api_key_id, model, sum(requests), sum(prompt_tokens), sum(completion_tokens), stream, outcome, platform, date_trunc('hour', created_at)
        from gone
        group by api_key_id, model, stream, outcome, platform, date_trunc('hour', created_at)
        returning 1
      )
      select count(*)::int as n from made`);
    return Number(rows[0]?.n ?? 0);
  });
}
