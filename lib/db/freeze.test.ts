import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, expect, it } from 'vitest';
import { type Database, openDatabase } from './client';

/*
 * The embedded cluster's template databases are frozen at a start once they are past their age
 * (./freeze.ts): otherwise their oldest transaction would one day stop the database taking any more.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const ages = async (d: Database) =>
  Object.fromEntries(
    (await d.db.execute<{ datname: string; age: number }>(sql`select datname, age(datfrozenxid)::int as age from pg_database`)).rows.map(
      (r) => [r.datname, Number(r.age)],
    ),
  );

it('freezes template0 and template1 at a start past their age, and keeps what Triad’s database holds', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-freeze-'));
  dirs.push(dataDir);
  let d = await openDatabase({ driver: 'pglite', dataDir });
  await d.db.execute(sql`create table kept (id int primary key)`);
  await d.db.execute(sql`insert into kept select generate_series(1, 100)`);
  // Each statement its own transaction: 2 000 of them age every database by as many.
  for (let i = 0; i < 2000; i++) await d.db.execute(sql`select txid_current()`);
  const before = await ages(d);
  expect(before.template0).toBeGreaterThan(2000);
  expect(before.template1).toBeGreaterThan(2000);
  await d.close();

  // Below the age: left as they are.
  d = await openDatabase({ driver: 'pglite', dataDir, freezeAge: 10_000 });
  expect((await ages(d)).template0).toBeGreaterThanOrEqual(before.template0!);
  await d.close();

  // Past it: both frozen, Triad's database as it was.
  d = await openDatabase({ driver: 'pglite', dataDir, freezeAge: 1000 });
  const after = await ages(d);
  expect(after.template0).toBeLessThan(10);
  expect(after.template1).toBeLessThan(10);
  expect(after.postgres).toBeGreaterThanOrEqual(before.postgres!);
  expect((await d.db.execute<{ n: number }>(sql`select count(*)::int as n from kept`)).rows[0]!.n).toBe(100);
  await d.close();
});
