import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createOrganization, createOrgToken, findOrgByToken, revokeOrgToken } from '@/lib/auth/credentials';
import type { Database } from './client';
import { engines } from './test-engines';

/* The same migration set on both engines: PGlite always, PostgreSQL when TEST_DATABASE_URL names a server (CI sets it). */
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function tableShape(d: Database) {
  const result = await d.db.execute(
    sql`select table_name, column_name, data_type from information_schema.columns where table_schema = 'public' order by table_name, column_name`,
  );
  return result.rows;
}

if (engines.length === 1) it.skip('PostgreSQL (set TEST_DATABASE_URL to run)', () => {});

const shapes: Record<string, unknown> = {};

describe.each(engines)('%s', (name, open) => {
  let d: Database;

  it('applies every migration file, on a fresh database', async () => {
    const opened = await open();
    d = opened.database;
    cleanups.push(opened.cleanup);
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
    expect(await findOrgByToken(d.db, token)).toEqual({ ...org, tokenId: id, suspended: false });
    const stored = await d.db.execute(sql`select token_hash, prefix from org_tokens where id = ${id}`);
    expect(JSON.stringify(stored.rows)).not.toContain(token);
    expect(await revokeOrgToken(d.db, { token })).toBe(true);
    expect(await findOrgByToken(d.db, token)).toBeNull();
    expect(await revokeOrgToken(d.db, { token })).toBe(false);
  });
});

if (engines.length > 1) {
  it('gives PGlite and PostgreSQL the same tables and columns', () => {
    expect(shapes.PGlite).toEqual(shapes.PostgreSQL);
  });
}
