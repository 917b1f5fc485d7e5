/*
 * Budget periods (design §17): calendar periods in UTC — a day, a week from Monday, a month — or
 * `total` (one period, for ever).
 */
export const PERIODS = ['day', 'week', 'month', 'total'] as const;
export type Period = (typeof PERIODS)[number];

const DAY_MS = 86_400_000;

/** The start of the period holding `t` (ms; 0 for `total`). */
export function periodStart(t: number, period: Period): number {
  if (period === 'total') return 0;
  const day = Math.floor(t / DAY_MS);
  if (period === 'day') return day * DAY_MS;
  // 1970-01-01 was a Thursday: Monday is 3 days before it.
  if (period === 'week') return (day - ((day + 3) % 7)) * DAY_MS;
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** When the period holding `t` ends and the budget is whole again (ms), or null for `total`. */
export function periodEnd(t: number, period: Period): number | null {
  if (period === 'total') return null;
  const start = periodStart(t, period);
  if (period === 'day') return start + DAY_MS;
  if (period === 'week') return start + 7 * DAY_MS;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** OpenRouter's name of a period in `limit_reset`. */
export const resetName = (period: Period): 'daily' | 'weekly' | 'monthly' | null =>
  period === 'total' ? null : ({ day: 'daily', week: 'weekly', month: 'monthly' } as const)[period];
