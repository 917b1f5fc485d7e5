// The embedded database's files, trimmed (`node scripts/pglite-files.mjs OUT.bin`, run by the build).
// PGlite's file-system bundle (pglite.data, 6.2 MB) holds every file its PostgreSQL may read: the server
// read it whole and kept it resident for good, its in-memory files being views of that one buffer. Most
// of it the server never reads. This keeps the rest: lib/db/pglite-files.ts lays those files out at
// their places in a buffer of the bundle's size, whose other pages are never written and so never
// resident (4.7 MB of the 6.2 not in memory).
//
// Left out, each never read by the server's PostgreSQL (it opens a cluster made from the build's
// template, it never runs initdb, and it and its only client speak UTF-8):
const LEFT_OUT = [
  // initdb's inputs: the catalog's bootstrap, the system views and functions, the sample configuration files
  /^\/pglite\/share\/postgresql\/(postgres\.bki|information_schema\.sql|system_\w+\.sql|snowball_create\.sql|sql_features\.txt|errcodes\.txt|[\w.]+\.sample)$/,
  // the makefiles to build extensions with
  /^\/pglite\/lib\/postgresql\/pgxs\//,
  // conversions between encodings (the database is UTF-8, and so is every client of it); replication
  /^\/pglite\/lib\/postgresql\/(\w+_and_\w+|libpqwalreceiver|pgoutput)\.so$/,
  // ICU's collation data: the clusters' collation is C (the libc provider), and no column names an ICU one
  /^\/pglite\/icu\/icudt\w+\//,
];
// Layout: one line of JSON — {"size": the bundle's size, "segments": [[offset, length], …]} — and then
// the kept segments' bytes one after another. The bundle's file list (name, start, end) is read from
// PGlite's own loader; if it cannot be read there, or does not cover the bundle exactly, no file is
// written and the server reads PGlite's bundle whole, as before.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/pglite-files.mjs OUT.bin');
  process.exit(2);
}
const dist = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
const bundle = fs.readFileSync(path.join(dist, 'pglite.data'));
const loader = fs
  .readdirSync(dist)
  .filter((f) => /\.(c?js)$/.test(f))
  .map((f) => fs.readFileSync(path.join(dist, f), 'utf8'))
  .find((text) => text.includes('filename:"/pglite/'));
const files = [...(loader ?? '').matchAll(/\{filename:"([^"]+)",start:(\d+),end:(\d+)\}/g)].map((m) => ({
  name: m[1],
  start: Number(m[2]),
  end: Number(m[3]),
}));
const tiled = files.length > 0 && files.every((f, i) => f.start === (i ? files[i - 1].end : 0) && f.end >= f.start);
fs.rmSync(out, { force: true });
if (!tiled || files.at(-1).end !== bundle.length) {
  console.warn(`triad: PGlite's bundle list was not found in ${dist}: the embedded database reads its bundle whole`);
  process.exit(0);
}
const segments = [];
for (const f of files) {
  if (LEFT_OUT.some((r) => r.test(f.name)) || f.end === f.start) continue;
  const last = segments.at(-1);
  if (last && last[0] + last[1] === f.start) last[1] += f.end - f.start;
  else segments.push([f.start, f.end - f.start]);
}
const head = Buffer.from(`${JSON.stringify({ size: bundle.length, segments })}\n`);
fs.writeFileSync(`${out}.partial`, Buffer.concat([head, ...segments.map(([at, n]) => bundle.subarray(at, at + n))]));
fs.renameSync(`${out}.partial`, out);
