#!/usr/bin/env node
// The packaged Triad's admin CLI (`npm run package` copies this file to dist/triad/admin.mjs):
// `node admin.mjs <command>` does what `npm run admin -- <command>` does in a checkout. Paths (the data
// directory, backup --out, restore --from) are read from the directory it was started in.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.TRIAD_DATA_DIR = path.resolve(process.env.TRIAD_DATA_DIR || 'data');
for (let i = 2; i < process.argv.length - 1; i++)
  if (process.argv[i] === '--out' || process.argv[i] === '--from') process.argv[i + 1] = path.resolve(process.argv[i + 1]);
// The CLI finds the migrations in its working directory, as the server does.
process.chdir(path.dirname(fileURLToPath(import.meta.url)));
await import('./.next/triad/admin.js');
