import { compareDecimals, subtractDecimals } from '@/lib/core/decimal';

/*
 * Where budgets' spend is kept (design §17): one record per scope (`key:<id>`, `org:<id>`) and period,
 * of what was spent and what requests in flight have reserved, and each request's holds. Two stores
 * do the same arithmetic atomically: the database (./db-store.ts: one conditional UPDATE on a locked
 * row) and Redis (./redis-store.ts: one Lua script), chosen by REDIS_URL. A hold past its expiry (its
 * instance died) is swept by the next reservation on its scope.
 */

/** One scope a request reserves on: `amount` USD against `limit` in the period starting `periodStart`. */
export type HoldLine = { scope: string; periodStart: number; limit: string; amount: string };

/** A reservation refused: on which scope, and what remained of its budget (USD, ≥ 0). */
export type Refusal = { scope: string; remaining: string };

export interface BudgetStore {
  readonly kind: 'database' | 'redis';
  /** Reserves every line or none: null when done, else the first line that did not fit. */
  reserve(id: string, lines: HoldLine[], expiresAt: number, now: number): Promise<Refusal | null>;
  /** Replaces the hold `id` on each line's scope by `cost` spent (a hold already swept: only the cost is added). */
  settle(id: string, lines: Pick<HoldLine, 'scope' | 'periodStart'>[], cost: string): Promise<void>;
  /** Moves the holds' expiry on (a long stream's instance is alive). */
  extend(id: string, lines: Pick<HoldLine, 'scope' | 'periodStart'>[], expiresAt: number): Promise<void>;
  /** What a scope spent and holds in a period (USD). */
  figures(scope: string, periodStart: number): Promise<{ spent: string; reserved: string }>;
}

/** What is left of `limit` once `used` is taken (USD, never below 0). */
export function remainder(limit: string, used: string): string {
  return compareDecimals(used, limit) >= 0 ? '0' : subtractDecimals(limit, used);
}
