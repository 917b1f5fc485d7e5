import { sql } from 'drizzle-orm';
import { addDecimals, compareDecimals, subtractDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { writeBehind } from '@/lib/db/write-behind';
import { log } from '@/lib/log';
import { type BudgetStore, type HoldLine, type Refusal, remainder } from './store';

/*
 * Budgets on the embedded database (./store.ts), which one process alone can open: the figures live
 * in this process, read from the database at a budget's first use, and each reservation is checked
 * and taken in one synchronous step (no other request can run between them: the event loop is the
 * lock), so the hot path waits for no statement. What is spent is written behind to budget_spend
 * (below); holds are this process's only, so a crash leaves none behind. The same arithmetic as the
 * other stores, exact.
 */
type Figures = { spent: string; reserved: string };

/**
 * What was spent, written behind the requests like their usage rows (lib/chat/usage.ts): summed per
 * budget and period for at most FLUSH_MS, then added in one statement — a statement on the embedded
 * database holds up every request while it runs. A clean shutdown writes what is left; a crash can
 * lose the last half second of spend (as of usage), never a hold.
 */
const FLUSH_MS = 500;
type Spend = { scope: string; periodStart: number; cost: string };
const spends = writeBehind<Spend>('budget-spend', {
  flushMs: FLUSH_MS,
  maxRows: 5000,
  key: (r) => `${r.scope}\0${r.periodStart}`,
  merge(into, r) {
    into.cost = addDecimals(into.cost, r.cost);
  },
  async write(db, rows) {
    const data = JSON.stringify(rows.map((r) => ({ scope: r.scope, period_start: r.periodStart, cost: r.cost })));
    try {
      await db.execute(sql`
        insert into budget_spend (scope, period_start, spent)
        select scope, period_start, cost from jsonb_to_recordset(${data}::jsonb) as x(scope text, period_start bigint, cost numeric)
        on conflict (scope, period_start) do update set spent = budget_spend.spent + excluded.spent`);
    } catch (e) {
      log.warn('budget spend not written', { rows: rows.length, error: (e as Error).message });
    }
  },
});

/** Writes the spend recorded so far (tests, and a process handing over). */
export const flushSpend = (): Promise<void> => spends.flush();

export function memoryBudgets(db: Db): BudgetStore {
  const figures = new Map<string, Figures>();
  const loading = new Map<string, Promise<void>>();
  const holds = new Map<string, Map<string, string>>(); // hold id → (scope key → amount)
  const keyOf = (l: Pick<HoldLine, 'scope' | 'periodStart'>) => `${l.scope}\0${l.periodStart}`;

  const load = (l: Pick<HoldLine, 'scope' | 'periodStart'>): Promise<void> | null => {
    const key = keyOf(l);
    if (figures.has(key)) return null;
    let p = loading.get(key);
    if (!p) {
      p = db
        .execute<{ spent: string }>(sql`select spent::text from budget_spend where scope = ${l.scope} and period_start = ${l.periodStart}`)
        .then((r) => {
          if (!figures.has(key)) figures.set(key, { spent: r.rows[0]?.spent ?? '0', reserved: '0' });
        })
        .finally(() => loading.delete(key));
      loading.set(key, p);
    }
    return p;
  };
  const loaded = async (lines: Pick<HoldLine, 'scope' | 'periodStart'>[]) => {
    for (const l of lines) await load(l);
  };

  const persist = (l: Pick<HoldLine, 'scope' | 'periodStart'>, cost: string) => {
    if (compareDecimals(cost, '0') !== 0) spends.record(db, { scope: l.scope, periodStart: l.periodStart, cost });
  };

  return {
    kind: 'database',
    async reserve(id, lines) {
      if (lines.some((l) => !figures.has(keyOf(l)))) await loaded(lines);
      // From here to the end, synchronous: checked and taken at once.
      for (const l of lines) {
        const f = figures.get(keyOf(l))!;
        const used = addDecimals(f.spent, f.reserved);
        if (compareDecimals(addDecimals(used, l.amount), l.limit) > 0)
          return { scope: l.scope, remaining: remainder(l.limit, used) } as Refusal;
      }
      const held = new Map<string, string>();
      for (const l of lines) {
        const f = figures.get(keyOf(l))!;
        f.reserved = addDecimals(f.reserved, l.amount);
        held.set(keyOf(l), l.amount);
      }
      holds.set(id, held);
      return null;
    },
    async settle(id, lines, cost) {
      const held = holds.get(id);
      holds.delete(id);
      if (lines.some((l) => !figures.has(keyOf(l)))) await loaded(lines);
      for (const l of lines) {
        const f = figures.get(keyOf(l))!;
        const amount = held?.get(keyOf(l));
        if (amount) f.reserved = subtractDecimals(f.reserved, amount);
        f.spent = addDecimals(f.spent, cost);
        persist(l, cost);
      }
    },
    async extend() {
      // Holds live as long as this process: nothing to move on.
    },
    async figures(scope, periodStart) {
      await load({ scope, periodStart });
      return { ...figures.get(keyOf({ scope, periodStart }))! };
    },
  };
}
