// Builds the app with `next build`, and the server (lib/server/main.ts) into .next/triad/server.js,
// unless .next holds a build of exactly the current sources (`--always`: even then; `npm run build`, whose
// build `npm start` then serves without building again). `--server-only`: the server alone (what `npm run
// dev` builds before it starts Next's development server).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = [
  'app',
  'components',
  'lib',
  'public',
  'instrumentation.ts',
  'proxy.ts',
  'next.config.ts',
  'postcss.config.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
  'package-lock.json',
];

function walk(p, out) {
  if (!fs.existsSync(p)) return;
  const st = fs.statSync(p);
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(p).sort()) walk(path.join(p, name), out);
  } else if (!/\.test\.tsx?$/.test(p)) {
    out.push(p);
  }
}

/**
 * A hash of every file that goes into the build (unit tests excluded). Not of the Node version: Next's output
 * and the server's bundle (esbuild, target node20) are the same whichever of 20, 22 and 24 builds them, so a
 * build made on one serves on the others (CI builds once, on Node 24, and runs the Node 22 suites on it).
 */
export function sourceFingerprint() {
  const files = [];
  for (const input of INPUTS) walk(path.join(root, input), files);
  const hash = createHash('sha256');
  for (const f of files) hash.update(path.relative(root, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  return hash.digest('hex');
}

/** Where the built server is: `node <flags> SERVER_ENTRY` starts it (scripts/server-args.mjs). */
export const SERVER_ENTRY = path.join(root, '.next', 'triad', 'server.js');

/** The app's routes as Next names them (`/api/v1/uptime/route`, `/(dashboard)/stats/page`), for the metrics' labels. */
function appRoutes() {
  const files = [];
  walk(path.join(root, 'app'), files);
  return files
    .map((f) => '/' + path.relative(path.join(root, 'app'), f).split(path.sep).join('/'))
    .filter((f) => /\/(route|page)\.tsx?$/.test(f))
    .map((f) => f.replace(/\.tsx?$/, ''))
    .sort();
}

/** Where the admin CLI (scripts/admin.ts) is bundled, for the package (`node admin.mjs …`, scripts/package.mjs). */
export const ADMIN_ENTRY = path.join(root, '.next', 'triad', 'admin.js');
/** The child process in which the server makes a new embedded data directory (lib/server/set-up.ts). */
export const SET_UP_ENTRY = path.join(root, '.next', 'triad', 'set-up.js');

/** The server's and the admin CLI's shared and dynamically imported chunks (beside SERVER_ENTRY). */
export const SERVER_CHUNKS = path.join(root, '.next', 'triad', 'chunks');

/**
 * Packages bundled into the server rather than loaded from node_modules. drizzle-orm's package.json is
 * 179 KB (an `exports` entry for each of its files), and Node 22 and 24 read a module's package scope
 * again for every ES module they load: importing drizzle-orm took 0.64 s of the server's start on Node
 * 24 (0.08 s on Node 20), bundled it takes none of that. (Next bundles its own copy likewise.)
 */
const BUNDLED_PACKAGES = ['drizzle-orm'];

/** For esbuild: every installed package (and its subpaths) stays in node_modules, except BUNDLED_PACKAGES. */
function externalPackages() {
  const modules = path.join(root, 'node_modules');
  const names = fs
    .readdirSync(modules)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? fs.readdirSync(path.join(modules, n)).map((m) => `${n}/${m}`) : [n]))
    .filter((n) => !BUNDLED_PACKAGES.includes(n));
  return names.flatMap((n) => [n, `${n}/*`]);
}

/**
 * Bundles the server and the admin CLI (TypeScript, `@/` paths resolved; packages stay in node_modules
 * but BUNDLED_PACKAGES) into SERVER_ENTRY and ADMIN_ENTRY, ES modules (their own package.json says so:
 * .next's says CommonJS).
 */
export function buildServer() {
  const { buildSync } = createRequire(import.meta.url)('esbuild');
  fs.mkdirSync(path.dirname(SERVER_ENTRY), { recursive: true });
  fs.writeFileSync(path.join(path.dirname(SERVER_ENTRY), 'package.json'), '{ "type": "module" }\n');
  fs.rmSync(SERVER_CHUNKS, { recursive: true, force: true });
  const { outputFiles } = buildSync({
    absWorkingDir: root,
    entryPoints: [
      { in: 'lib/server/main.ts', out: path.basename(SERVER_ENTRY, '.js') },
      { in: 'scripts/admin.ts', out: path.basename(ADMIN_ENTRY, '.js') },
      { in: 'lib/server/set-up.ts', out: path.basename(SET_UP_ENTRY, '.js') },
    ],
    outdir: path.dirname(SERVER_ENTRY),
    bundle: true,
    // What is imported dynamically is a chunk of its own, loaded when first imported: PostgreSQL's
    // driver (pg, through drizzle's node-postgres) stays out of a server on the embedded database.
    splitting: true,
    chunkNames: `${path.basename(SERVER_CHUNKS)}/[name]-[hash]`,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: externalPackages(),
    tsconfig: 'tsconfig.json',
    define: {
      TRIAD_APP_ROUTES: JSON.stringify(appRoutes()),
      TRIAD_VERSION: JSON.stringify(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version),
    },
    logLevel: 'warning',
    write: false,
  });
  for (const file of outputFiles) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    fs.writeFileSync(file.path, latin1Comments(file.text));
  }
}

/**
 * V8 keeps a script's source for the life of the process, as one byte a character only if every
 * character is Latin-1: one `…` in a comment doubled the server's 0.9 MB of source in memory. esbuild
 * escapes what is not ASCII in strings, templates and regular expressions (its default charset), and
 * keeps comments as they are; so what is above U+00FF here is in a comment, and is written as an escape.
 */
const latin1Comments = (text) => text.replace(/[^\u0000-\u00ff]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);

/** The embedded database's template: a migrated PGlite cluster (scripts/pglite-template.mjs) new data directories start from. */
export const PGLITE_TEMPLATE = path.join(root, '.next', 'triad', 'pglite-template.tar.gz');

/** Writes `out` with a script of scripts/ that takes the file it writes as its argument. */
function writeWith(script, out) {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  execFileSync(process.execPath, [path.join(root, 'scripts', script), out], { cwd: root, stdio: 'inherit' });
}

/** Makes PGLITE_TEMPLATE (a few seconds: PGlite's initdb and the migrations, once per build). */
export const buildPgliteTemplate = () => writeWith('pglite-template.mjs', PGLITE_TEMPLATE);

/** The embedded database's files, trimmed of what the server never reads (scripts/pglite-files.mjs), read by lib/db/pglite-files.ts. */
export const PGLITE_FILES = path.join(root, '.next', 'triad', 'pglite-files.bin');

/** Makes PGLITE_FILES (under a second). */
export const buildPgliteFiles = () => writeWith('pglite-files.mjs', PGLITE_FILES);

/** The tokenizer's table: the o200k encoding's tokens as bytes (scripts/token-table.mjs), read by lib/chat/tokens.ts. */
export const TOKEN_TABLE = path.join(root, '.next', 'triad', 'o200k.bin');

/** Makes TOKEN_TABLE (under a second). */
export const buildTokenTable = () => writeWith('token-table.mjs', TOKEN_TABLE);

/** What the build adds to Next's output: the server, the node agent, and the files they read. */
function buildBeyondNext() {
  buildServer();
  buildAgent();
  buildPgliteTemplate();
  buildPgliteFiles();
  buildTokenTable();
}

/** Where the node agent is bundled: one file with nothing to install, served at /downloads/triad-node.mjs. */
export const AGENT_ENTRY = path.join(root, '.next', 'triad', 'triad-node.mjs');

/**
 * Bundles the node agent (lib/node-agent/main.ts) with everything it uses (ws, zod) into AGENT_ENTRY:
 * `node triad-node.mjs` on Node 20 or later, no npm, no checkout.
 */
export function buildAgent() {
  const { buildSync } = createRequire(import.meta.url)('esbuild');
  buildSync({
    absWorkingDir: root,
    entryPoints: ['lib/node-agent/main.ts'],
    outfile: AGENT_ENTRY,
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: 'tsconfig.json',
    // ws's optional native helpers stay out (it falls back to JavaScript); CommonJS inside needs a require.
    external: ['bufferutil', 'utf-8-validate'],
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __triadRequire } from 'node:module';\nconst require = __triadRequire(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'warning',
  });
}

const stamp = path.join(root, '.next', 'triad-source-fingerprint');

/** `always`: build even when .next holds a build of these sources (`npm run build`). */
export function buildIfNeeded({ quiet = false, always = false } = {}) {
  const fingerprint = sourceFingerprint();
  const built =
    !always &&
    fs.existsSync(path.join(root, '.next', 'BUILD_ID')) &&
    fs.existsSync(SERVER_ENTRY) &&
    fs.existsSync(stamp) &&
    fs.readFileSync(stamp, 'utf8') === fingerprint;
  if (built) return false;
  if (!quiet) console.log('triad: building the app (next build); this takes a minute or two the first time…');
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
    });
  } catch {
    console.error('triad: the build failed (see above)');
    process.exit(1);
  }
  buildBeyondNext();
  fs.writeFileSync(stamp, fingerprint);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--server-only')) {
    // The server of other sources than the stamped build's: .next no longer holds one build of them all,
    // so the next buildIfNeeded builds again (else sources put back would run the server built meanwhile).
    if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') !== sourceFingerprint()) fs.rmSync(stamp);
    buildBeyondNext();
  } else buildIfNeeded({ always: process.argv.includes('--always') });
}
