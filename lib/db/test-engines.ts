import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Database, openDatabase } from './client';
import { freshDatabase } from './fresh-database';

/*
 * For tests: fresh databases on both engines. PGlite always; PostgreSQL when TEST_DATABASE_URL
 * names a server (CI sets it), with a database made for the test and dropped after it.
 */
export type Engine = [name: string, open: () => Promise<{ database: Database; cleanup: () => Promise<void> }>];

export async function freshPglite() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-test-'));
  process.env.TRIAD_DATA_DIR ??= dir;
  const database = await openDatabase({ driver: 'pglite', dataDir: dir });
  return {
    database,
    cleanup: async () => {
      await database.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function freshPostgres() {
  const fresh = await freshDatabase(process.env.TEST_DATABASE_URL!, 'triad_unit');
  const database = await openDatabase({ driver: 'postgres', url: fresh.url });
  return {
    database,
    cleanup: async () => {
      await database.close();
      await fresh.drop();
    },
  };
}

export const engines: Engine[] = [
  ['PGlite', freshPglite],
  ...(process.env.TEST_DATABASE_URL ? [['PostgreSQL', freshPostgres] as Engine] : []),
];
