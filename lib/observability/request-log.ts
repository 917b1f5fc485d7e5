import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { encodeCursor } from '@/lib/core/cursor';
import { mendText } from '@/lib/core/text';
import { type Db, embeddedClient } from '@/lib/db/client';
import { requestLog } from '@/lib/db/schema';
import { inBatches } from '@/lib/db/batches';
import { writeBehind } from '@/lib/db/write-behind';
import { log } from '@/lib/log';

/*
 * The request log (design §18): each completion's (and embedding's) record — when, its request id, the
 * key, the model, who served it, the status, latency and time to first token, tokens, cost, the error
 * and the trace id — for an operator asked "why was my request slow, or wrong?". No prompt or reply
 * text is stored. Rows are written behind the request path, like usage (every 500 ms, in statements
 * of bounded size, the server answering requests between them: see write()), kept
 * TRIAD_REQUEST_LOG_DAYS, read newest first in cursor pages, an organization only its own.
 */
export type RequestRecord = {
  requestId: string;
  orgId: string;
  apiKeyId: string;
  endpoint: string;
  model: string;
  provider: string | null;
  status: number;
  stream: boolean;
  latencyMs: number;
  ttftMs: number | null;
  promptTokens: number;
  completionTokens: number;
  /** USD, exact decimal text. */
  cost: string;
  error: string | null;
  traceId: string | null;
  /** When the request began (epoch ms). */
  at: number;
};

const STATEMENT_ROWS = 100;
const COPY_ROWS = 500;
const records = writeBehind<RequestRecord>('request-log', { flushMs: 500, maxRows: 5000, write }); // every record is its own row

export function recordRequest(db: Db, record: RequestRecord): void {
  records.record(db, record);
}

/** Writes what was recorded so far; resolves once it is stored. */
export const flushRequestLog = (): Promise<void> => records.flush();

/** The columns as written, in order, with their types (for jsonb_to_recordset). */
const COLUMNS = {
  request_id: 'text',
  org_id: 'text',
  api_key_id: 'text',
  endpoint: 'text',
  model: 'text',
  provider: 'text',
  status: 'integer',
  stream: 'boolean',
  latency_ms: 'integer',
  ttft_ms: 'integer',
  prompt_tokens: 'integer',
  completion_tokens: 'integer',
  cost: 'numeric',
  error: 'text',
  trace_id: 'text',
  created_at: 'timestamptz',
};
const NAMES = Object.keys(COLUMNS);
const NAME_LIST = NAMES.join(', ');
const TYPED_LIST = Object.entries(COLUMNS)
  .map(([name, type]) => `${name} ${type}`)
  .join(', ');

/**
 * A record's values in the order of COLUMNS. The texts that come from outside — the model the client
 * named, the error a model server or node gave — mended where PostgreSQL could not store them (a NUL or
 * half a surrogate pair: lib/core/text.ts), so that one such row does not cost its statement's others.
 */
const valuesOf = (r: RequestRecord): (string | number | boolean | null)[] => [
  r.requestId,
  r.orgId,
  r.apiKeyId,
  r.endpoint,
  mendText(r.model),
  r.provider,
  r.status,
  r.stream,
  Math.round(r.latencyMs),
  r.ttftMs === null ? null : Math.round(r.ttftMs),
  r.promptTokens,
  r.completionTokens,
  r.cost,
  r.error === null ? null : mendText(r.error),
  r.traceId,
  new Date(r.at).toISOString(),
];
/** A CSV cell for COPY: null as nothing, text quoted. */
const cell = (v: string | number | boolean | null) =>
  v === null ? '' : typeof v === 'string' ? `"${v.replaceAll('"', '""')}"` : String(v);

/** Rows (values in the order of COLUMNS) as one INSERT of a JSON parameter. */
async function insertAsJson(db: Db, rows: ReturnType<typeof valuesOf>[]): Promise<void> {
  const json = JSON.stringify(rows.map((values) => Object.fromEntries(NAMES.map((name, k) => [name, values[k]]))));
  await db.execute(
    sql`insert into ${requestLog} (${sql.raw(NAME_LIST)}) select * from jsonb_to_recordset(${json}::jsonb) as x(${sql.raw(TYPED_LIST)})`,
  );
}

/**
 * Records written at once, in statements of 1 000, on any handle (a transaction's too): the demo's
 * history (lib/admin/demo-usage.ts). Give them in the order of their time (the log is read by id).
 */
export async function insertRequests(db: Db, records: RequestRecord[], between: () => Promise<void>): Promise<void> {
  for (let i = 0; i < records.length; i += 1000) {
    await between();
    await insertAsJson(db, records.slice(i, i + 1000).map(valuesOf));
  }
}

/**
 * On the embedded database, which runs on the server's own thread, COPY: a third of an INSERT's cost a
 * row (about 16 µs against 50 on this project's VM). On PostgreSQL, one INSERT of a JSON parameter a
 * statement. Either way the server answers requests between statements.
 */
async function write(db: Db, rows: RequestRecord[]): Promise<void> {
  const embedded = embeddedClient(db);
  const size = embedded ? COPY_ROWS : STATEMENT_ROWS;
  for (let i = 0; i < rows.length; i += size) {
    if (i) await new Promise((r) => setImmediate(r)); // let waiting requests run
    const part = rows.slice(i, i + size).map(valuesOf);
    try {
      if (embedded) {
        const csv = part.map((values) => values.map(cell).join(',') + '\n').join('');
        await embedded.query(`copy request_log (${NAME_LIST}) from '/dev/blob' with (format csv)`, [], { blob: new Blob([csv]) });
      } else await insertAsJson(db, part);
    } catch (e) {
      log.warn('request log not recorded', { rows: part.length, error: (e as Error).message });
    }
  }
}

/** An entry as `GET /api/org/requests` gives it (design §18). */
export type RequestEntry = {
  request_id: string;
  created_at: string;
  api_key_id: string;
  endpoint: string;
  model: string;
  provider: string | null;
  status: number;
  stream: boolean;
  latency_ms: number;
  ttft_ms: number | null;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  error: string | null;
  trace_id: string | null;
};

export type RequestFilter = {
  orgId: string;
  apiKeyId?: string;
  model?: string;
  /** The API path it came by. */
  endpoint?: string;
  /** An HTTP status, or a class: `2xx`, `4xx`, `5xx`; `error`: every entry with an error. */
  status?: number | '2xx' | '4xx' | '5xx' | 'error';
  requestId?: string;
  /** Epoch ms, inclusive / exclusive. */
  startedAt?: number;
  endedAt?: number;
  /** The page after this position (the previous page's last). */
  after?: number;
  limit: number;
};

export const REQUESTS_CURSOR = 'requests';

/** The organization's entries, newest first; `after`: the cursor of the next page, null at the end. */
export async function listRequests(db: Db, f: RequestFilter): Promise<{ entries: RequestEntry[]; after: string | null }> {
  const where: SQL[] = [eq(requestLog.orgId, f.orgId)];
  if (f.apiKeyId) where.push(eq(requestLog.apiKeyId, f.apiKeyId));
  if (f.model) where.push(eq(requestLog.model, f.model));
  if (f.endpoint) where.push(eq(requestLog.endpoint, f.endpoint));
  if (f.requestId) where.push(eq(requestLog.requestId, f.requestId));
  if (typeof f.status === 'number') where.push(eq(requestLog.status, f.status));
  else if (f.status === 'error') where.push(sql`${requestLog.error} is not null`);
  else if (f.status) {
    const from = Number(f.status[0]) * 100;
    where.push(gte(requestLog.status, from), lt(requestLog.status, from + 100));
  }
  if (f.startedAt !== undefined) where.push(gte(requestLog.createdAt, new Date(f.startedAt)));
  if (f.endedAt !== undefined) where.push(lt(requestLog.createdAt, new Date(f.endedAt)));
  if (f.after !== undefined) where.push(lt(requestLog.id, f.after));
  const rows = await db
    .select()
    .from(requestLog)
    .where(and(...where))
    .orderBy(desc(requestLog.id))
    .limit(f.limit + 1);
  const page = rows.slice(0, f.limit);
  return {
    entries: page.map((r) => ({
      request_id: r.requestId,
      created_at: r.createdAt.toISOString(),
      api_key_id: r.apiKeyId,
      endpoint: r.endpoint,
      model: r.model,
      provider: r.provider,
      status: r.status,
      stream: r.stream,
      latency_ms: r.latencyMs,
      ttft_ms: r.ttftMs,
      prompt_tokens: r.promptTokens,
      completion_tokens: r.completionTokens,
      cost: Number(r.cost),
      error: r.error,
      trace_id: r.traceId,
    })),
    after: rows.length > f.limit ? encodeCursor(REQUESTS_CURSOR, page.at(-1)!.id) : null,
  };
}

/** Deletes entries older than `days` (in batches, each its own statement, at quiet moments: lib/db/batches.ts); how many. */
export function deleteOldRequests(db: Db, days: number, now = Date.now(), batch = 1000): Promise<number> {
  const cutoff = new Date(now - days * 86_400_000).toISOString();
  // Rows are written in the order they began (give or take the half second of a batch): the oldest
  // have the lowest ids, and the primary key's order finds them without an index of their own.
  return inBatches(db, batch, async (size) => {
    const { rows } = await db.execute<{ id: number }>(sql`
      delete from ${requestLog} where id in (
        select id from ${requestLog} where created_at < ${cutoff}::timestamptz order by id limit ${size}) returning id`);
    return rows.length;
  });
}
