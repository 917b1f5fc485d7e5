import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, openDatabase } from './client';

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
  const base = process.env.TEST_DATABASE_URL!;
  const name = `triad_unit_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const database = await openDatabase({ driver: 'postgres', url: url.toString() });
  return {
    database,
    cleanup: async () => {
      await database.close();
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

export const engines: Engine[] = [['PGlite', freshPglite], ...(process.env.TEST_DATABASE_URL ? [['PostgreSQL', freshPostgres] as Engine] : [])];
