import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from './client';
import { engines, freshPglite } from './test-engines';
import { vacuumEmbedded } from './vacuum';

/*
 * The embedded database vacuums itself (./vacuum.ts): a table whose rows are deleted and inserted again,
 * as retention's are, stays the same size; without the rounds it grows with every turn.
 */

const ROWS = 20_000;
const pages = async (d: Database) =>
  Number((await d.db.execute<{ p: string }>(sql`select pg_relation_size('churn') / 8192 as p`)).rows[0]!.p);

/** Deletes the oldest half of the table and inserts as many new rows (a retention window moving on). */
async function turn(d: Database, k: number) {
  await d.db.execute(sql`delete from churn where id <= ${(k * ROWS) / 2}`);
  await d.db.execute(
    sql`insert into churn (id, body) select g, repeat('x', 100) from generate_series(${(k * ROWS) / 2 + ROWS + 1}::int, ${((k + 1) * ROWS) / 2 + ROWS}::int) g`,
  );
}

describe('the embedded database’s vacuum', () => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ database: d, cleanup } = await freshPglite());
    await d.db.execute(sql`create table churn (id bigint primary key, body text not null)`);
    await d.db.execute(sql`insert into churn (id, body) select g, repeat('x', 100) from generate_series(1, ${ROWS}::int) g`);
  });
  afterEach(() => cleanup());

  it('keeps a table whose rows come and go at its size, keeps the planner’s row count, and leaves alone what has not changed', async () => {
    const frozenXid = async () =>
      Number(
        (await d.db.execute<{ x: string }>(sql`select datfrozenxid::text as x from pg_database where datname = current_database()`))
          .rows[0]!.x,
      );
    const frozenBefore = await frozenXid();
    // The first round after a start takes every table of Triad's; the catalogs wait for their rows' age.
    const first = await vacuumEmbedded(d.db);
    expect(first).toEqual(expect.arrayContaining(['public.churn', 'public.node_events']));
    expect(first).not.toContain('pg_catalog.pg_class');
    expect(await frozenXid()).toBe(frozenBefore);
    // Past that age, every table, and the database's oldest transaction moves on (against wraparound).
    expect(await vacuumEmbedded(d.db, { freezeAge: 0 })).toContain('pg_catalog.pg_class');
    expect(await frozenXid()).toBeGreaterThan(frozenBefore);
    // The planner's row count.
    const { rows } = await d.db.execute<{ reltuples: number }>(sql`select reltuples from pg_class where relname = 'churn'`);
    expect(Number(rows[0]!.reltuples)).toBe(ROWS);

    const sizes = [await pages(d)];
    for (let k = 0; k < 6; k++) {
      await turn(d, k);
      const round = await vacuumEmbedded(d.db);
      expect(round).toContain('public.churn');
      // What nothing wrote to is not taken again.
      expect(round).not.toContain('public.node_events');
      sizes.push(await pages(d));
    }
    // Each turn's new rows go where the turn before deleted some: after the first turns, no growth.
    expect(sizes[6]).toBeLessThanOrEqual(sizes[3]! * 1.05);
    expect(sizes[6]).toBeLessThanOrEqual(sizes[0]! * 2.2);

    expect(await vacuumEmbedded(d.db)).toEqual([]);
  });

  it('(without its rounds, the same turns grow the table at each)', async () => {
    const sizes = [await pages(d)];
    for (let k = 0; k < 6; k++) {
      await turn(d, k);
      sizes.push(await pages(d));
    }
    expect(sizes[6]).toBeGreaterThan(sizes[3]! * 1.3);
    expect(sizes[6]).toBeGreaterThan(sizes[0]! * 3);
  });
});

describe.each(engines.filter(([name]) => name !== 'PGlite'))('on %s', (_name, open) => {
  it('does nothing: the server’s own autovacuum does it', async () => {
    const { database, cleanup } = await open();
    try {
      expect(await vacuumEmbedded(database.db)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
