/** PostgreSQL's vacuum_freeze_table_age: past it, a vacuum scans the whole table to freeze its rows. */
export const FREEZE_AGE = 150_000_000;

/**
 * The embedded cluster's other databases (template0, template1) are never written, yet their oldest
 * transaction ages with each one Triad's database takes, and PostgreSQL takes no more transactions once any
 * database's is near 2^31 old (wraparound): only a VACUUM in that database moves it on. Autovacuum would
 * do it; the embedded database's one backend serves Triad's database alone while it runs, so this is done
 * at a start, before Triad's opens (lib/db/client.ts): the databases past `freezeAge` (a few tenths of a
 * second each, once in 150 million transactions). Resolves to the names of those that are.
 */
export async function databasesToFreeze(
  client: { query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }> },
  freezeAge = FREEZE_AGE,
): Promise<string[]> {
  const { rows } = await client.query<{ datname: string }>(
    'select datname from pg_database where datname <> current_database() and age(datfrozenxid) > $1 order by datname',
    [freezeAge],
  );
  return rows.map((r) => r.datname);
}
