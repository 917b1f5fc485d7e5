import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { chatUsage } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { onShutdown } from '@/lib/shutdown';

/*
 * Usage records are written in batches (every 500 ms, or 200 rows), off the request path:
 * one insert per batch instead of one per completion. A clean shutdown flushes what is left;
 * a crash can lose the last half second of usage records (never a reply).
 */
type Row = typeof chatUsage.$inferInsert;
const FLUSH_MS = 500;
const MAX_ROWS = 200;
const G = Symbol.for('triad.usageBuffer');
type Pending = { db: Db | null; rows: Row[]; timer: NodeJS.Timeout | null };

function pending(): Pending {
  const g = globalThis as Record<symbol, Pending | undefined>;
  if (!g[G]) {
    g[G] = { db: null, rows: [], timer: null };
    onShutdown('chat-usage', () => flushUsage());
  }
  return g[G];
}

export function recordUsage(db: Db, row: Row): void {
  const b = pending();
  b.db = db;
  b.rows.push(row);
  if (b.rows.length >= MAX_ROWS) void flushUsage();
  else b.timer ??= setTimeout(() => void flushUsage(), FLUSH_MS);
}

export async function flushUsage(): Promise<void> {
  const b = pending();
  if (b.timer) clearTimeout(b.timer);
  b.timer = null;
  const rows = b.rows.splice(0);
  if (!rows.length || !b.db) return;
  const started = performance.now();
  try {
    await b.db.insert(chatUsage).values(rows);
    log.debug('chat usage recorded', { rows: rows.length, ms: Math.round((performance.now() - started) * 10) / 10 });
  } catch (e) {
    log.warn('chat usage not recorded', { rows: rows.length, error: (e as Error).message });
  }
}

/** What one API key has used, per model (flushes pending records first). */
export async function usageByModel(db: Db, apiKeyId: string) {
  await flushUsage();
  return db
    .select({
      model: chatUsage.model,
      requests: sql<number>`count(*)::int`,
      prompt_tokens: sql<number>`coalesce(sum(${chatUsage.promptTokens}), 0)::int`,
      completion_tokens: sql<number>`coalesce(sum(${chatUsage.completionTokens}), 0)::int`,
    })
    .from(chatUsage)
    .where(eq(chatUsage.apiKeyId, apiKeyId))
    .groupBy(chatUsage.model)
    .orderBy(chatUsage.model);
}
