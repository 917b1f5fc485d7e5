import { sql } from 'drizzle-orm';
import { addDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { type BudgetStore, type HoldLine, type Refusal, remainder } from './store';

/*
 * Budgets in the database (./store.ts): a reservation locks its scope's row, sweeps the scope's expired
 * holds, and adds its amount with one conditional UPDATE (`spent + reserved + amount <= limit`), in one
 * transaction over all its lines (taken in scope order, so that two requests never wait on each other
 * crosswise). Exact: PostgreSQL's numeric.
 */
class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super('refused');
  }
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

const byScope = <T extends { scope: string }>(lines: T[]) =>
  [...lines].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));

async function sweep(tx: Tx, scope: string, now: number) {
  await tx.execute(sql`
    with gone as (delete from budget_holds where scope = ${scope} and expires_at < ${now} returning period_start, amount)
    update budget_spend b set reserved = b.reserved - g.amount
    from (select period_start, sum(amount) as amount from gone group by period_start) g
    where b.scope = ${scope} and b.period_start = g.period_start`);
}

export function databaseBudgets(db: Db): BudgetStore {
  return {
    kind: 'database',
    async reserve(id: string, lines: HoldLine[], expiresAt: number, now: number) {
      try {
        await db.transaction(async (tx) => {
          for (const l of byScope(lines)) {
            await tx.execute(sql`
              insert into budget_spend (scope, period_start) values (${l.scope}, ${l.periodStart}) on conflict do nothing`);
            await tx.execute(sql`select 1 from budget_spend where scope = ${l.scope} and period_start = ${l.periodStart} for update`);
            await sweep(tx, l.scope, now);
            const taken = await tx.execute(sql`
              update budget_spend set reserved = reserved + ${l.amount}::numeric
              where scope = ${l.scope} and period_start = ${l.periodStart}
                and spent + reserved + ${l.amount}::numeric <= ${l.limit}::numeric
              returning 1`);
            if (!taken.rows.length) {
              const f = await tx.execute<{ spent: string; reserved: string }>(sql`
                select spent::text, reserved::text from budget_spend where scope = ${l.scope} and period_start = ${l.periodStart}`);
              const used = f.rows[0] ? addDecimals(f.rows[0].spent, f.rows[0].reserved) : '0';
              throw new Refused({ scope: l.scope, remaining: remainder(l.limit, used) });
            }
            await tx.execute(sql`
              insert into budget_holds (id, scope, period_start, amount, expires_at)
              values (${id}, ${l.scope}, ${l.periodStart}, ${l.amount}::numeric, ${expiresAt})`);
          }
        });
        return null;
      } catch (e) {
        if (e instanceof Refused) return e.refusal;
        throw e;
      }
    },
    async settle(id, lines, cost) {
      await db.transaction(async (tx) => {
        for (const l of byScope(lines)) {
          const held = await tx.execute<{ amount: string }>(sql`
            delete from budget_holds where id = ${id} and scope = ${l.scope} returning amount::text`);
          const amount = held.rows[0]?.amount ?? '0';
          await tx.execute(sql`
            insert into budget_spend (scope, period_start, spent) values (${l.scope}, ${l.periodStart}, ${cost}::numeric)
            on conflict (scope, period_start) do update
              set spent = budget_spend.spent + excluded.spent, reserved = budget_spend.reserved - ${amount}::numeric`);
        }
      });
    },
    async extend(id, lines, expiresAt) {
      for (const l of lines)
        await db.execute(sql`update budget_holds set expires_at = ${expiresAt} where id = ${id} and scope = ${l.scope}`);
    },
    async figures(scope, periodStart) {
      const r = await db.execute<{ spent: string; reserved: string }>(sql`
        select spent::text, reserved::text from budget_spend where scope = ${scope} and period_start = ${periodStart}`);
      return r.rows[0] ?? { spent: '0', reserved: '0' };
    },
  };
}
