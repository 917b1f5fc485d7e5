import { config } from '@/lib/config';
import { addDecimals, compareDecimals } from '@/lib/core/decimal';
import { randomId } from '@/lib/core/random-id';
import { shared } from '@/lib/core/runtime';
import type { Db } from '@/lib/db/client';
import { budgetExceeded, budgetUnavailable } from '@/lib/errors/chat';
import { log } from '@/lib/log';
import { costOf, type Prices } from '@/lib/providers/prices';
import { redisClient } from '@/lib/rate-limit';
import { databaseBudgets } from './db-store';
import { memoryBudgets } from './memory-store';
import { type Period, periodEnd, periodStart } from './periods';
import { redisBudgets } from './redis-store';
import { type BudgetStore, type HoldLine, remainder } from './store';

/*
 * Budgets as hard caps (design §17). An API key, and its organization over all its keys, may carry a
 * budget: USD per UTC day, week, month, or in total. Before a request is sent, its most possible cost
 * is reserved on each (./store.ts: atomic, exact across instances); a reservation that does not fit is
 * refused with 402 budget_exceeded, the remainder and the reset time in the message. When the usage is
 * known the hold is replaced by the real cost (the ledger settles it, lib/pipeline/ledger.ts). A hold
 * lives a request's timeout (TRIAD_UPSTREAM_TIMEOUT_MS), moved on while its request runs, so that a
 * crashed instance's holds lapse and free their budget.
 */
export type Budget = { scope: `key:${string}` | `org:${string}`; usd: string; period: Period };

/** A provider that may serve a request: its prices, and how many tokens its model takes in all (null: not said). */
export type Offer = { prices: Prices; contextLength: number | null };

declare module '@/lib/core/runtime' {
  interface Runtime {
    budgetStore: { store?: Promise<BudgetStore> };
    budgetHolds: { holds: Set<{ id: string; lines: HoldLine[]; since: number }>; timer: NodeJS.Timeout | null };
  }
}

/**
 * The budget store: Redis when REDIS_URL is set (shared by the instances); else PostgreSQL's rows
 * (several instances may share them); else, on the embedded database (one process), this process's
 * figures written through to it.
 */
export function budgetStore(db: Db): Promise<BudgetStore> {
  const runtime = shared('budgetStore', () => ({}));
  runtime.store ??= (async () => {
    const redis = await redisClient();
    if (!redis) return config().driver === 'pglite' ? memoryBudgets(db) : databaseBudgets(db);
    const prefix = config().TRIAD_REDIS_PREFIX;
    // A period's figures are kept 35 days past its end (GET /api/v1/key reads the one under way).
    return redisBudgets(redis, prefix, (start, scope) => {
      const period = scope.split('|')[1] as Period | undefined;
      const end = period ? periodEnd(start, period) : null;
      return end === null ? 0 : end + 35 * 86_400_000;
    });
  })();
  return runtime.store;
}

/** The scope a budget's spend is counted under: its owner and its period kind (a changed period starts afresh). */
const scopeOf = (b: Budget) => `${b.scope}|${b.period}`;

/**
 * The most a request can cost on any of `offers`: its prompt (Triad's count, with the margin a server's
 * own count is believed within, TRIAD_TUNNEL_USAGE_MARGIN, plus 32) and its output — `maxOutput`, else
 * what the model's context leaves, else TRIAD_BUDGET_OUTPUT_TOKENS — at the dearest prices.
 */
export function mostCost(promptTokens: number, maxOutput: number | null, offers: Offer[]): string {
  const c = config();
  const prompt = Math.ceil(promptTokens * c.TRIAD_TUNNEL_USAGE_MARGIN) + 32;
  let most = '0';
  for (const o of offers) {
    const output = maxOutput ?? (o.contextLength ? Math.max(o.contextLength - promptTokens, 0) : c.TRIAD_BUDGET_OUTPUT_TOKENS);
    const cost = costOf({ prompt_tokens: prompt, completion_tokens: output }, o.prices);
    if (compareDecimals(cost, most) > 0) most = cost;
  }
  return most;
}

/** A request's reservation: settled once with its real cost (`settle('0')` releases it). */
export type BudgetHold = { settle(cost: string): void };

const NO_HOLD: BudgetHold = { settle: () => {} };

const usd = (d: string) => `$${d}`;

/** Reserves `amount` on every budget, or throws 402 naming the first that cannot cover it. */
export async function reserve(db: Db, budgets: Budget[], amount: string): Promise<BudgetHold> {
  if (!budgets.length) return NO_HOLD;
  const store = await budgetStore(db);
  const now = Date.now();
  const lines: HoldLine[] = budgets.map((b) => ({ scope: scopeOf(b), periodStart: periodStart(now, b.period), limit: b.usd, amount }));
  const id = randomId(12);
  const ttl = config().TRIAD_UPSTREAM_TIMEOUT_MS;
  let refusal;
  try {
    refusal = await store.reserve(id, lines, now + ttl, now);
  } catch (e) {
    log.warn('budget not reserved: its store failed', { store: store.kind, error: (e as Error).message });
    throw budgetUnavailable();
  }
  if (refusal) {
    const b = budgets[lines.findIndex((l) => l.scope === refusal.scope)]!;
    const end = periodEnd(now, b.period);
    const whose = b.scope.startsWith('key:') ? "This API key's" : "The organization's";
    const per = b.period === 'total' ? 'total budget' : `budget per ${b.period}`;
    throw budgetExceeded(
      `${whose} ${per} of ${usd(b.usd)} cannot cover this request (up to ${usd(amount)}): ${usd(refusal.remaining)} remains` +
        (end === null ? '.' : `, whole again at ${new Date(end).toISOString()}.`) +
        ' A smaller max_tokens reserves less.',
    );
  }
  // While the request runs its holds do not lapse.
  const live = liveHolds(store, ttl);
  const hold = { id, lines, since: now };
  live.add(hold);
  let settled = false;
  return {
    settle(cost: string) {
      if (settled) return;
      settled = true;
      live.delete(hold);
      store.settle(id, lines, cost).catch((e) => log.warn('budget not settled', { store: store.kind, error: (e as Error).message }));
    },
  };
}

type LiveHold = { id: string; lines: HoldLine[]; since: number };

/**
 * The holds of requests still running, moved on together every third of their time by one timer of
 * the process (not one a request): a hold older than that third is extended to a whole time again.
 */
function liveHolds(store: BudgetStore, ttl: number): Set<LiveHold> {
  const state = shared('budgetHolds', () => ({ holds: new Set<LiveHold>(), timer: null as NodeJS.Timeout | null }));
  if (!state.timer) {
    state.timer = setInterval(() => {
      const now = Date.now();
      for (const h of state.holds)
        if (now - h.since >= ttl / 3) {
          h.since = now;
          store.extend(h.id, h.lines, now + ttl).catch(() => {});
        }
    }, ttl / 3);
    state.timer.unref();
  }
  return state.holds;
}

/** A budget as the console shows it: its amount and period, what the period under way spent, what remains (less holds), when it resets. */
export async function budgetView(db: Db, b: Budget, now = Date.now()) {
  const f = await (await budgetStore(db)).figures(scopeOf(b), periodStart(now, b.period));
  const end = periodEnd(now, b.period);
  return {
    usd: b.usd,
    period: b.period,
    spent: f.spent,
    remaining: remainder(b.usd, addDecimals(f.spent, f.reserved)),
    resets_at: end === null ? null : new Date(end).toISOString(),
  };
}
