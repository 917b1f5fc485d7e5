import { sql } from 'drizzle-orm';
import { addDecimals, compareDecimals, subtractDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { log } from '@/lib/log';
import { type BudgetStore, type HoldLine, type Refusal, remainder } from './store';

/*
 * Budgets on the embedded database (./store.ts), which one process alone can open: the figures live
 * in this process, read from the database at a budget's first use, and each reservation is checked
 * and taken in one synchronous step (no other request can run between them: the event loop is the
 * lock), so the hot path waits for no statement. What is spent is written through to budget_spend as
 * each hold is settled (queued, off the request's path); holds are this process's only, so a crash
 * leaves none behind. The same arithmetic as the other stores, exact.
 */
type Figures = { spent: string; reserved: string };

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

  // Settlements written in order, one after another (never two at once on the embedded database).
  let writes: Promise<unknown> = Promise.resolve();
  const persist = (l: Pick<HoldLine, 'scope' | 'periodStart'>, cost: string) => {
    if (compareDecimals(cost, '0') === 0) return;
    writes = writes.then(() =>
      db
        .execute(
          sql`insert into budget_spend (scope, period_start, spent) values (${l.scope}, ${l.periodStart}, ${cost}::numeric)
              on conflict (scope, period_start) do update set spent = budget_spend.spent + excluded.spent`,
        )
        .catch((e) => log.warn('budget spend not written', { scope: l.scope, error: (e as Error).message })),
    );
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
