import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createOrganization, createOrgToken, findOrgByToken, revokeOrgToken } from '@/lib/auth/credentials';
import { openDatabase, type Database } from './client';

/*
 * The same migration set on both engines: PGlite always, PostgreSQL when TEST_DATABASE_URL
 * names a server (CI sets it). A fresh database is created for the run and dropped after.
 */
const base = process.env.TEST_DATABASE_URL;
const dbName = `triad_unit_${process.pid}_${Date.now()}`;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function openPglite(): Promise<Database> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-db-'));
  const d = await openDatabase({ driver: 'pglite', dataDir: dir });
  cleanups.push(async () => {
    await d.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return d;
}

async function openPostgres(): Promise<Database> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database "${dbName}"`);
  const url = new URL(base!);
  url.pathname = `/${dbName}`;
  const d = await openDatabase({ driver: 'postgres', url: url.toString() });
  cleanups.push(async () => {
    await d.close();
    await admin.query(`drop database if exists "${dbName}" with (force)`);
    await admin.end();
  });
  return d;
}

async function tableShape(d: Database) {
  const result = await d.db.execute(
    sql`select table_name, column_name, data_type from information_schema.columns where table_schema = 'public' order by table_name, column_name`,
  );
  return result.rows;
}

const engines: [string, () => Promise<Database>][] = [['PGlite', openPglite]];
if (base) engines.push(['PostgreSQL', openPostgres]);
else it.skip('PostgreSQL (set TEST_DATABASE_URL to run)', () => {});

const shapes: Record<string, unknown> = {};

describe.each(engines)('%s', (name, open) => {
  let d: Database;

  it('applies every migration file, on a fresh database', async () => {
    d = await open();
    const shape = await tableShape(d);
    expect(shape.length).toBeGreaterThan(40);
    shapes[name] = shape;
    const migrations = await d.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const files = fs.readdirSync(path.join(process.cwd(), 'lib/db/migrations')).filter((f) => f.endsWith('.sql'));
    expect(migrations.rows[0]).toEqual({ n: files.length });
  });

  it('stores credentials by hash and honours revocation', async () => {
    const org = await createOrganization(d.db, { name: 'Acme' });
    const { id, token } = await createOrgToken(d.db, { orgId: org.id });
    expect(await findOrgByToken(d.db, token)).toEqual(org);
    const stored = await d.db.execute(sql`select token_hash, prefix from org_tokens where id = ${id}`);
    expect(JSON.stringify(stored.rows)).not.toContain(token);
    expect(await revokeOrgToken(d.db, { token })).toBe(true);
    expect(await findOrgByToken(d.db, token)).toBeNull();
    expect(await revokeOrgToken(d.db, { token })).toBe(false);
  });
});

if (base) {
  it('gives PGlite and PostgreSQL the same tables and columns', () => {
    expect(shapes.PGlite).toEqual(shapes.PostgreSQL);
  });
}
