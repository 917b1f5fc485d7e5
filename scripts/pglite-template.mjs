// The embedded database's template (`node scripts/pglite-template.mjs OUT.tar.gz`, run by the build):
// a new PGlite cluster with every migration applied, as PGlite's own gzipped tarball. A new data
// directory is made from it (lib/db/client.ts) in about a second and a half, where PGlite's initdb
// takes seven on this project's machine; without it (a build by other means), initdb runs as before.
// The cluster holds no secret and nothing of an installation: those are written at the first start.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/pglite-template.mjs OUT.tar.gz');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '..');
const db = new PGlite();
await db.waitReady;
await migrate(drizzle({ client: db }), { migrationsFolder: path.join(root, 'lib', 'db', 'migrations') });
const tarball = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
await db.close();
fs.writeFileSync(`${out}.partial`, tarball);
fs.renameSync(`${out}.partial`, out);
