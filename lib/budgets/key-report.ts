import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { ApiKeyPrincipal } from '@/lib/auth/credentials';
import { flushUsage } from '@/lib/chat/usage';
import type { Db } from '@/lib/db/client';
import { chatUsage } from '@/lib/db/schema';
import { type Budget, budgetView } from './budgets';
import { periodStart, resetName } from './periods';

/*
 * `GET /api/v1/key` (design §17), as OpenRouter's: the key's label, allow-list and expiry, its budget
 * (`limit`, what remains of it, when it resets) and what it spent — today, this week, this month (UTC
 * calendar periods) and in all — from the usage rows every instance writes (each within half a second).
 */
const usd = z.number().describe('USD');
const limitFields = {
  limit: usd.nullable().describe('the budget (null: none)'),
  limit_remaining: usd.nullable().describe('what remains of it now, less the requests in flight'),
  limit_reset: z.enum(['daily', 'weekly', 'monthly']).nullable().describe('when it is whole again (null: a total budget, or none)'),
  limit_resets_at: z.string().nullable().describe('ISO 8601: the next reset'),
};
export const keyReportSchema = z.object({
  label: z.string(),
  models: z.array(z.string()).nullable().describe('the models it may use (null: every model)'),
  ...limitFields,
  usage: usd.describe('spent in all'),
  usage_daily: usd.describe('spent since 00:00 UTC'),
  usage_weekly: usd.describe('spent since Monday 00:00 UTC'),
  usage_monthly: usd.describe('spent since the 1st, 00:00 UTC'),
  expires_at: z.string().nullable().describe('ISO 8601 (null: it does not expire)'),
  /** Beyond OpenRouter's: the organization's budget over all its keys. */
  organization: z.object(limitFields).describe("the organization's budget over all its keys"),
});
export type KeyReport = z.infer<typeof keyReportSchema>;

async function limitOf(db: Db, b: Budget | undefined) {
  if (!b) return { limit: null, limit_remaining: null, limit_reset: null, limit_resets_at: null };
  const v = await budgetView(db, b);
  return {
    limit: Number(b.usd),
    limit_remaining: Number(v.remaining),
    limit_reset: resetName(b.period),
    limit_resets_at: v.resets_at,
  } as const;
}

export async function keyReport(db: Db, key: ApiKeyPrincipal, now = Date.now()): Promise<KeyReport> {
  await flushUsage();
  const since = (p: 'day' | 'week' | 'month') => new Date(periodStart(now, p)).toISOString();
  const [spent] = (
    await db.execute<{ total: string; day: string; week: string; month: string }>(sql`
      select coalesce(sum(cost), 0)::text as total,
        coalesce(sum(cost) filter (where created_at >= ${since('day')}::timestamptz), 0)::text as day,
        coalesce(sum(cost) filter (where created_at >= ${since('week')}::timestamptz), 0)::text as week,
        coalesce(sum(cost) filter (where created_at >= ${since('month')}::timestamptz), 0)::text as month
      from ${chatUsage} where api_key_id = ${key.id}`)
  ).rows;
  const own = key.budgets.find((b) => b.scope.startsWith('key:'));
  const org = key.budgets.find((b) => b.scope.startsWith('org:'));
  return {
    label: key.label ?? key.prefix,
    models: key.models,
    ...(await limitOf(db, own)),
    usage: Number(spent!.total),
    usage_daily: Number(spent!.day),
    usage_weekly: Number(spent!.week),
    usage_monthly: Number(spent!.month),
    expires_at: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
    organization: await limitOf(db, org),
  };
}
