import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createCluster } from './client';
import { layOut, trimmedFsBundle } from './pglite-files';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-pglite-files-'));
const file = path.join(dir, 'pglite-files.bin');
const original = fs.readFileSync(path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.data'));

beforeAll(() => {
  execFileSync(process.execPath, [path.join(process.cwd(), 'scripts', 'pglite-files.mjs'), file]);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the trimmed bundle is PGlite's, byte for byte where it keeps a file, zero elsewhere, and a fraction of its size", async () => {
  const bundle = new Uint8Array(await layOut(fs.readFileSync(file), file).arrayBuffer());
  expect(bundle.length).toBe(original.length);
  const { segments } = JSON.parse(fs.readFileSync(file, 'utf8').split('\n', 1)[0]!) as { segments: [number, number][] };
  const inSegment = new Uint8Array(original.length);
  for (const [offset, length] of segments) {
    expect(Buffer.compare(bundle.subarray(offset, offset + length), original.subarray(offset, offset + length))).toBe(0);
    inSegment.fill(1, offset, offset + length);
  }
  expect(bundle.every((b, i) => inSegment[i] || b === 0)).toBe(true);
  expect(Buffer.compare(bundle, original)).not.toBe(0);
  expect(segments.reduce((n, [, length]) => n + length, 0)).toBeLessThan(original.length / 3);
});

test('a database opened on the trimmed bundle answers what Triad asks of it: time zones, text search, PL/pgSQL', async () => {
  const pgDir = path.join(dir, 'cluster');
  await createCluster(pgDir);
  const pg = new PGlite(pgDir, { fsBundle: layOut(fs.readFileSync(file), file) });
  try {
    const { rows } = await pg.query<{ berlin: string; words: string; n: number }>(
      `select (timestamptz '2026-07-01 12:00:00+00' at time zone 'Europe/Berlin')::text as berlin,
              to_tsvector('english', 'The dogs were running')::text as words,
              extract(hour from timestamptz '2026-01-01 00:00:00 PST')::int as n`,
    );
    expect(rows[0]).toEqual({ berlin: '2026-07-01 14:00:00', words: "'dog':2 'run':4", n: 8 });
    await pg.exec(`create function twice(x int) returns int language plpgsql as $$ begin return 2 * x; end $$`);
    expect((await pg.query<{ y: number }>('select twice(21) as y')).rows[0]!.y).toBe(42);
  } finally {
    await pg.close();
  }
});

test("the server's bundle is the build's copy where there is one, else PGlite's own; a damaged copy is named", async () => {
  const built = path.join(process.cwd(), '.next', 'triad', 'pglite-files.bin');
  const bundle = trimmedFsBundle();
  expect(bundle === undefined).toBe(!fs.existsSync(built));
  if (bundle) expect((await bundle.arrayBuffer()).byteLength).toBe(original.length);
  const damaged = Buffer.concat([fs.readFileSync(file), Buffer.from('more')]);
  expect(() => layOut(damaged, 'damaged.bin')).toThrow(/damaged\.bin is damaged \(4 bytes beyond its segments\)/);
});
