// `npm run package`: writes dist/triad/, a copy of Triad that runs with `node server.js` and nothing else
// (design §15): the built app and server, public/, the documents the built-in guide reads, the
// migrations, and only the production dependencies the server uses, traced file by file (Next's
// standalone output for the app, @vercel/nft for Triad's own server bundle). No npm, no checkout, no
// dev dependencies. The same Node major that built it runs it.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { scriptOptions } from './lib/cli.mjs';
import {
  ADMIN_ENTRY,
  AGENT_ENTRY,
  buildIfNeeded,
  PGLITE_FILES,
  PGLITE_TEMPLATE,
  SERVER_CHUNKS,
  SERVER_ENTRY,
  SET_UP_ENTRY,
  TOKEN_TABLE,
} from './build-if-needed.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// No options: `--help` says what it does, anything else is refused (rather than a package written).
scriptOptions('usage: npm run package   (no options: writes dist/triad/, which runs with `node server.js`; see docs/operations.md)');
const require = createRequire(import.meta.url);

/** Copies a file or a folder, symbolic links as they are (Next's standalone output links hashed package names). */
function copy(from, to) {
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true, force: true });
}

/**
 * The files under node_modules that Triad's own server bundle loads beyond the app's (ws for the tunnels,
 * say). Next itself is as its standalone output traced it for production: traced from `import('next')`,
 * it would bring its development server and compilers too (100 MB more).
 */
async function serverDependencies() {
  const { nodeFileTrace } = require('next/dist/compiled/@vercel/nft');
  const { fileList } = await nodeFileTrace([SERVER_ENTRY, ADMIN_ENTRY, SET_UP_ENTRY], { base: root, processCwd: root });
  const skipped = /^node_modules\/(next|sharp|@img|@next|typescript)\//;
  return [...fileList].filter((f) => f.startsWith('node_modules/') && !skipped.test(f));
}

function sizeOf(p) {
  const st = fs.lstatSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((sum, name) => sum + sizeOf(path.join(p, name)), 0);
}

/** The package's own package.json: what the server reads of it (version, module type), no scripts, no dependencies to install. */
function packageJson() {
  const own = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const { name, version, description, engines } = own;
  return {
    name,
    version,
    description,
    private: true,
    type: 'module',
    engines,
    triad: { nodeMajor: Number(process.versions.node.split('.')[0]) },
  };
}

async function main() {
  buildIfNeeded();
  const standalone = path.join(root, '.next', 'standalone');
  if (!fs.existsSync(path.join(standalone, '.next', 'BUILD_ID')))
    throw new Error(".next/standalone is missing: next.config.ts must keep output: 'standalone'");
  const out = path.join(root, 'dist', 'triad');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(out), { recursive: true });

  // The app as Next traced it (its server code, the node_modules it loads, the files it reads).
  copy(standalone, out);
  // What Next's standalone output leaves to the deployer: the browser's assets and public/.
  copy(path.join(root, '.next', 'static'), path.join(out, '.next', 'static'));
  copy(path.join(root, 'public'), path.join(out, 'public'));
  // Triad's server and the node agent partners download, and every migration (with drizzle's journal).
  fs.mkdirSync(path.join(out, '.next', 'triad'), { recursive: true });
  for (const f of [
    SERVER_ENTRY,
    ADMIN_ENTRY,
    SET_UP_ENTRY,
    AGENT_ENTRY,
    PGLITE_TEMPLATE,
    TOKEN_TABLE,
    path.join(path.dirname(SERVER_ENTRY), 'package.json'),
  ])
    fs.copyFileSync(f, path.join(out, '.next', 'triad', path.basename(f)));
  // Written by the build where PGlite's bundle list could be read (scripts/pglite-files.mjs).
  if (fs.existsSync(PGLITE_FILES)) fs.copyFileSync(PGLITE_FILES, path.join(out, '.next', 'triad', path.basename(PGLITE_FILES)));
  copy(SERVER_CHUNKS, path.join(out, '.next', 'triad', path.basename(SERVER_CHUNKS)));
  copy(path.join(root, 'lib', 'db', 'migrations'), path.join(out, 'lib', 'db', 'migrations'));
  copy(path.join(root, 'docs'), path.join(out, 'docs'));
  copy(path.join(root, 'README.md'), path.join(out, 'README.md'));
  // The packages Triad's server loads beyond the app's (ws for the tunnels, say).
  for (const f of await serverDependencies()) {
    const to = path.join(out, f);
    if (fs.existsSync(to)) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(root, f), to);
  }
  // Next's own server.js gives way to Triad's launcher; the admin CLI is `node admin.mjs <command>`.
  fs.copyFileSync(path.join(root, 'scripts', 'package-server.mjs'), path.join(out, 'server.js'));
  fs.copyFileSync(path.join(root, 'scripts', 'server-flags.mjs'), path.join(out, 'server-flags.mjs'));
  fs.copyFileSync(path.join(root, 'scripts', 'package-admin.mjs'), path.join(out, 'admin.mjs'));
  fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify(packageJson(), null, 2) + '\n');
  fs.rmSync(path.join(out, 'data'), { recursive: true, force: true });

  const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  const modules = sizeOf(path.join(out, 'node_modules'));
  console.log(`triad: package written to ${path.relative(process.cwd(), out) || '.'}: ${mb(sizeOf(out))} (node_modules ${mb(modules)})`);
  console.log(`triad: run it with \`node server.js\` inside it, on Node ${process.versions.node.split('.')[0]}`);
}

main().catch((e) => {
  console.error(`triad: package failed: ${e?.message ?? e}`);
  process.exit(1);
});
