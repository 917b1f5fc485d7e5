import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, expect, test } from 'vitest';
import { createCluster } from './client';
import { extractTemplate } from './cluster-template';

const made: string[] = [];
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-template-'));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A one-entry ustar archive, gzipped: a file named `name` holding `body`. */
function tarOf(name: string, body: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 'latin1');
  header.write('0000644\0', 100, 'latin1');
  header.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header.write('0', 156, 'latin1');
  header.write('ustar\0', 257, 'latin1');
  const content = Buffer.alloc(Math.ceil(body.length / 512) * 512);
  content.write(body, 'latin1');
  return gzipSync(Buffer.concat([header, content, Buffer.alloc(1024)]));
}

test('a new cluster written from the build’s template opens with every migration applied', { timeout: 60_000 }, async () => {
  const dir = tmp();
  const template = path.join(dir, 'template.tar.gz');
  execFileSync(process.execPath, [path.resolve('scripts/pglite-template.mjs'), template]);
  const cluster = path.join(dir, 'pglite');
  extractTemplate(fs.readFileSync(template), cluster);
  const db = new PGlite(cluster);
  try {
    const journal = JSON.parse(fs.readFileSync('lib/db/migrations/meta/_journal.json', 'utf8')) as { entries: unknown[] };
    const { rows } = await db.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations');
    expect(rows[0]!.n).toBe(journal.entries.length);
    expect((await db.query<{ n: number }>('select count(*)::int as n from organizations')).rows[0]!.n).toBe(0);
  } finally {
    await db.close();
  }
  // Its files and directories are the owner's (and group's, as PGlite wrote them): nobody else reads them.
  expect(fs.statSync(path.join(cluster, 'PG_VERSION')).mode & 0o007).toBe(0);
  expect(fs.statSync(path.join(cluster, 'base')).mode & 0o007).toBe(0);
});

test('a template naming a path outside the cluster is refused, and nothing is written there', () => {
  const dir = tmp();
  expect(() => extractTemplate(tarOf('/../escaped', 'x'), path.join(dir, 'cluster'))).toThrow(/outside the cluster/);
  expect(fs.existsSync(path.join(dir, 'escaped'))).toBe(false);
  extractTemplate(tarOf('/base/file', 'hello'), path.join(dir, 'ok'));
  expect(fs.readFileSync(path.join(dir, 'ok', 'base', 'file'), 'utf8')).toBe('hello');
});

test('without the build’s template (a build by other means), a new cluster is made by PGlite’s initdb', { timeout: 60_000 }, async () => {
  const cluster = path.join(tmp(), 'pglite');
  await createCluster(cluster, path.join(tmp(), 'no-template.tar.gz'));
  expect(fs.readFileSync(path.join(cluster, 'PG_VERSION'), 'utf8').trim()).toMatch(/^\d+$/);
  const db = new PGlite(cluster);
  try {
    expect((await db.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await db.close();
  }
});
