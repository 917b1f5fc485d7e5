import { sql } from 'drizzle-orm';
import { addDecimals, compareDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { type BudgetStore, type HoldLine, type Refusal, remainder } from './store';

/*
 * Budgets in PostgreSQL's rows (./store.ts), which several instances share: a reservation is one
 * statement per budget — its amount added with a conditional UPDATE (`spent + reserved + amount <=
 * limit`, re-checked against a concurrent change) and its hold written — and the budgets of one
 * request are taken in one transaction, in scope order (two requests never wait on each other
 * crosswise). Lapsed holds are swept before a reservation is refused and before figures are read.
 * Exact: PostgreSQL's numeric.
 */
class Refused extends Error {
  constructor(readonly refusal: Refusal) {
    super('refused');
  }
}

const byScope = <T extends { scope: string }>(lines: T[]) =>
  [...lines].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));

/** A scope's lapsed holds (their instance died) removed, their amounts taken off `reserved`. */
async function sweep(db: Db, scope: string, now: number) {
  await db.execute(sql`
    with gone as (delete from budget_holds where scope = ${scope} and expires_at < ${now} returning period_start, amount)
    update budget_spend b set reserved = b.reserved - g.amount
    from (select period_start, sum(amount) as amount from gone group by period_start) g
    where b.scope = ${scope} and b.period_start = g.period_start`);
}

export function databaseBudgets(db: Db): BudgetStore {
  /**
   * One line's reservation in one statement: the amount added where `spent + reserved + amount <=
   * limit` (the row is locked, and a concurrent change re-checked), and its hold written. True when
   * taken.
   */
  const take = async (tx: Db, id: string, l: HoldLine, expiresAt: number): Promise<boolean> => {
    const r = await tx.execute(sql`
      with up as (
        update budget_spend set reserved = reserved + ${l.amount}::numeric
        where scope = ${l.scope} and period_start = ${l.periodStart}
          and spent + reserved + ${l.amount}::numeric <= ${l.limit}::numeric
        returning 1
      )
      insert into budget_holds (id, scope, period_start, amount, expires_at)
      select ${id}, ${l.scope}, ${l.periodStart}, ${l.amount}::numeric, ${expiresAt} where exists (select 1 from up)
      returning 1`);
    return r.rows.length > 0;
  };
  /** What remains of a line's budget; null when its period had no row yet (made now). */
  const remains = async (tx: Db, l: HoldLine): Promise<string | null> => {
    const f = await tx.execute<{ spent: string; reserved: string }>(sql`
      select spent::text, reserved::text from budget_spend where scope = ${l.scope} and period_start = ${l.periodStart}`);
    if (f.rows[0]) return remainder(l.limit, addDecimals(f.rows[0].spent, f.rows[0].reserved));
    await tx.execute(sql`insert into budget_spend (scope, period_start) values (${l.scope}, ${l.periodStart}) on conflict do nothing`);
    return null;
  };
  /**
   * Each line taken at once when it fits (the common case: one statement); else after its period's row
   * is made, or its scope's lapsed holds are swept, or room was freed meanwhile; else refused with what
   * remains, read after the failed attempt (so it is less than the request needs).
   */
  const reserveAll = async (tx: Db, id: string, lines: HoldLine[], expiresAt: number, now: number) => {
    for (const l of byScope(lines)) {
      for (let tries = 0; !(await take(tx, id, l, expiresAt)); tries++) {
        let left = await remains(tx, l);
        if (left === null) continue; // its period's row is made: take it again
        if (compareDecimals(left, l.amount) < 0) {
          await sweep(tx, l.scope, now);
          left = (await remains(tx, l)) ?? '0';
          if (compareDecimals(left, l.amount) < 0) throw new Refused({ scope: l.scope, remaining: left });
        }
        // Room was freed meanwhile (a request settled, a hold lapsed): taken again, so that a budget is
        // not refused while what remains covers the request. Under heavy churn (30 requests at once over
        // two instances, replies in a millisecond) another request can take the freed room first several
        // times in a row: five tries were once not enough (e2e/lifecycle/money.spec.ts); the bound is there
        // only so that a request cannot loop for ever.
        if (tries >= 50) throw new Refused({ scope: l.scope, remaining: left });
      }
    }
  };

  return {
    kind: 'database',
    async reserve(id: string, lines: HoldLine[], expiresAt: number, now: number) {
      try {
        // One budget: one statement, atomic on its own; more: together in a transaction.
        if (lines.length === 1) await reserveAll(db, id, lines, expiresAt, now);
        else await db.transaction((tx) => reserveAll(tx, id, lines, expiresAt, now));
        return null;
      } catch (e) {
        if (e instanceof Refused) return e.refusal;
        throw e;
      }
    },
    async settle(id, lines, cost) {
      // Per budget one statement (its hold gone and its figures moved together), so that its row is
      // locked for as short a time as can be: the next reservation waits on it.
      for (const l of byScope(lines))
        await db.execute(sql`
          with held as (delete from budget_holds where id = ${id} and scope = ${l.scope} returning amount)
          update budget_spend set spent = spent + ${cost}::numeric, reserved = reserved - coalesce((select sum(amount) from held), 0)
          where scope = ${l.scope} and period_start = ${l.periodStart}`);
    },
    async extend(id, lines, expiresAt) {
      for (const l of lines)
        await db.execute(sql`update budget_holds set expires_at = ${expiresAt} where id = ${id} and scope = ${l.scope}`);
    },
    async figures(scope, periodStart) {
      await sweep(db, scope, Date.now());
      const r = await db.execute<{ spent: string; reserved: string }>(sql`
        select spent::text, reserved::text from budget_spend where scope = ${scope} and period_start = ${periodStart}`);
      return r.rows[0] ?? { spent: '0', reserved: '0' };
    },
  };
}
