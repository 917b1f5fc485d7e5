import { sql } from 'drizzle-orm';
import { quiet } from '@/lib/core/in-flight';
import { type Db, embeddedClient } from './client';
import { FREEZE_AGE } from './freeze';

/*
 * The embedded database's vacuum. PGlite runs PostgreSQL as its one backend, where autovacuum never runs:
 * without VACUUM the space of the rows retention deletes, and of updated rows' old versions, is never used
 * again (the free-space map is VACUUM's to fill), so the files grow however little they hold, and no row is
 * frozen against transaction-id wraparound. This does autovacuum's vacuum in its place, with its default
 * thresholds: a table is vacuumed once its dead rows exceed 50 + 20 % of its rows, or the rows inserted since
 * its last vacuum 1 000 + 20 %, or its oldest unfrozen transaction is older than `freezeAge` (which also
 * reaches the catalogs, so that the database's oldest transaction moves on). PGlite's activity counters
 * start from zero at every start (none are kept across a restart), so the first round after a start takes
 * every table of Triad's, whatever they say. (Not ANALYZE: its samples would grow the WebAssembly memory,
 * which never shrinks, by megabytes; VACUUM keeps the planner's row and page counts.)
 *
 * One statement a table, each at a quiet moment (lib/core/in-flight.ts): on the embedded database a statement
 * holds every request while it runs (a table of a million rows: 0.2 s at most, docs/operations.md). On
 * PostgreSQL its own autovacuum does this; there this does nothing.
 */

/** The longest a table's statement waits for a quiet moment. */
const LATEST_MS = 1000;

/** Vacuums the embedded database's tables that need it, one at a time; resolves to which. */
export async function vacuumEmbedded(db: Db, { freezeAge = FREEZE_AGE }: { freezeAge?: number } = {}): Promise<string[]> {
  if (!embeddedClient(db)) return [];
  // The backend sends its counters to the statistics at most once a second, at a pause between statements;
  // this has the last of them sent at once, before the next statement reads them.
  await db.execute(sql`select pg_stat_force_next_flush()`);
  const { rows } = await db.execute<{ target: string }>(sql`
    select format('%I.%I', n.nspname, c.relname) as target
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    join pg_stat_all_tables s on s.relid = c.oid
    where c.relkind in ('r', 'm') and c.relpersistence = 'p'
      and ((s.last_vacuum is null and n.nspname = 'public')
        or s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
        or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0)
        or age(c.relfrozenxid) > ${freezeAge})
    order by n.nspname = 'pg_catalog', c.relname`);
  const vacuumed: string[] = [];
  for (const { target } of rows) {
    await quiet(LATEST_MS);
    await db.execute(sql.raw(`vacuum ${target}`));
    vacuumed.push(target);
  }
  return vacuumed;
}
