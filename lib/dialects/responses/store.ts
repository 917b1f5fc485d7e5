import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { mayBeUnstorable, mendText } from '@/lib/core/text';
import { inBatches } from '@/lib/db/batches';
import { responseItems, responses } from '@/lib/db/schema';
import type { Item } from './schema';

/*
 * Stored responses (design §16): each with its organization, its input and output items in order, and
 * an expiry. Every read names the organization, so another organization's response is "not found",
 * exactly as an id that does not exist.
 */

/** A chain of previous_response_id longer than this is refused (a loop guard, and a bound on what one request replays). */
export const MAX_CHAIN = 200;

/**
 * `value` as PostgreSQL's jsonb can hold it: a NUL character or half a surrogate pair (which a model
 * server may write, but jsonb refuses) becomes U+FFFD in every string and key. The same value when it
 * has neither (nearly always).
 */
export function storable<T>(value: T): T {
  if (!mayBeUnstorable(JSON.stringify(value))) return value;
  const clean = (v: unknown): unknown =>
    typeof v === 'string'
      ? mendText(v)
      : Array.isArray(v)
        ? v.map(clean)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [mendText(k), clean(x)]))
          : v;
  return clean(value) as T;
}

export async function saveResponse(
  db: Db,
  r: {
    id: string;
    orgId: string;
    apiKeyId: string;
    previousResponseId: string | null;
    body: Record<string, unknown>;
    input: Item[];
    output: Item[];
    ttlDays: number;
  },
): Promise<void> {
  // The body holds the output items too: made storable together, in one pass.
  const { body, input, output } = storable({ body: r.body, input: r.input, output: r.output });
  await db.transaction(async (tx) => {
    await tx.insert(responses).values({
      id: r.id,
      orgId: r.orgId,
      apiKeyId: r.apiKeyId,
      previousResponseId: r.previousResponseId,
      body,
      expiresAt: new Date(Date.now() + r.ttlDays * 86_400_000),
    });
    const rows = [
      ...input.map((item) => ({ kind: 'input' as const, item })),
      ...output.map((item) => ({ kind: 'output' as const, item })),
    ].map((x, seq) => ({
      responseId: r.id,
      seq,
      orgId: r.orgId,
      itemId: x.item.id,
      kind: x.kind,
      item: x.item as Record<string, unknown>,
    }));
    if (rows.length) await tx.insert(responseItems).values(rows);
  });
}

const live = (orgId: string, id: string) => and(eq(responses.id, id), eq(responses.orgId, orgId), gt(responses.expiresAt, sql`now()`));

export async function getResponse(db: Db, orgId: string, id: string): Promise<Record<string, unknown> | null> {
  const [row] = await db.select({ body: responses.body }).from(responses).where(live(orgId, id));
  return row?.body ?? null;
}

export async function deleteResponse(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db.delete(responses).where(live(orgId, id)).returning({ id: responses.id });
  return rows.length > 0;
}

/**
 * The conversation a response continues: the items of `previousId` and of every response before it,
 * oldest first (each one's input, then its output). Null when `previousId` is not a live response of
 * the organization.
 */
export async function historyOf(db: Db, orgId: string, previousId: string): Promise<Item[] | null> {
  const chain = await db.execute<{ id: string; depth: number }>(sql`
    with recursive chain(id, prev, depth) as (
      select id, previous_response_id, 0 from ${responses}
        where id = ${previousId} and org_id = ${orgId} and expires_at > now()
      union all
      select r.id, r.previous_response_id, c.depth + 1 from ${responses} r join chain c on r.id = c.prev
        where r.org_id = ${orgId} and c.depth < ${MAX_CHAIN}
    )
    select id, depth from chain`);
  const rows = chain.rows;
  if (!rows.length) return null;
  const depth = new Map(rows.map((r) => [r.id, Number(r.depth)]));
  const items = await db
    .select({ responseId: responseItems.responseId, seq: responseItems.seq, item: responseItems.item })
    .from(responseItems)
    .where(inArray(responseItems.responseId, [...depth.keys()]));
  items.sort((a, b) => depth.get(b.responseId)! - depth.get(a.responseId)! || a.seq - b.seq);
  return items.map((r) => r.item as unknown as Item);
}

/** Stored items of the organization by id (for `item_reference`), the latest copy of each. */
export async function itemsById(db: Db, orgId: string, ids: string[]): Promise<Map<string, Item>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ itemId: responseItems.itemId, item: responseItems.item })
    .from(responseItems)
    .innerJoin(responses, eq(responses.id, responseItems.responseId))
    .where(and(eq(responseItems.orgId, orgId), inArray(responseItems.itemId, ids), gt(responses.expiresAt, sql`now()`)));
  return new Map(rows.map((r) => [r.itemId, r.item as unknown as Item]));
}

/** A response's input items, a page at a time (OpenAI's list shape); null when the response is not the organization's. */
export async function inputItems(db: Db, orgId: string, id: string, q: { limit: number; order: 'asc' | 'desc'; after?: string }) {
  if (!(await getResponse(db, orgId, id))) return null;
  let afterSeq: number | undefined;
  if (q.after) {
    const [at] = await db
      .select({ seq: responseItems.seq })
      .from(responseItems)
      .where(and(eq(responseItems.responseId, id), eq(responseItems.itemId, q.after)));
    afterSeq = at?.seq;
  }
  const rows = await db
    .select({ item: responseItems.item })
    .from(responseItems)
    .where(
      and(
        eq(responseItems.responseId, id),
        eq(responseItems.kind, 'input'),
        afterSeq === undefined ? undefined : q.order === 'asc' ? gt(responseItems.seq, afterSeq) : lt(responseItems.seq, afterSeq),
      ),
    )
    .orderBy(q.order === 'asc' ? asc(responseItems.seq) : desc(responseItems.seq))
    .limit(q.limit + 1);
  const data = rows.slice(0, q.limit).map((r) => r.item);
  return {
    object: 'list' as const,
    data,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data.at(-1)?.id as string | undefined) ?? null,
    has_more: rows.length > q.limit,
  };
}

/** Deletes expired responses (and their items), in batches at quiet moments (lib/db/batches.ts); how many. */
export function purgeExpiredResponses(db: Db, batch = 1000): Promise<number> {
  return inBatches(db, batch, async (size) => {
    const rows = await db.execute<{ id: string }>(sql`
      delete from ${responses} where id in (select id from ${responses} where expires_at <= now() limit ${size}) returning id`);
    return rows.rows.length;
  });
}
