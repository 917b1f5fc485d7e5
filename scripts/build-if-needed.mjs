// Builds the app with `next build` unless .next holds a build of exactly the current sources.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
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

/** A hash of every file that goes into the build (unit tests excluded), and of the Node major that builds it. */
export function sourceFingerprint() {
  const files = [];
  for (const input of INPUTS) walk(path.join(root, input), files);
  const hash = createHash('sha256');
  // A build is made and tested by one Node major: a server started on another builds anew.
  hash.update(`node ${process.versions.node.split('.')[0]}\0`);
  for (const f of files) hash.update(path.relative(root, f)).update('\0').update(fs.readFileSync(f)).update('\0');
  return hash.digest('hex');
}

export function buildIfNeeded({ quiet = false } = {}) {
  const stamp = path.join(root, '.next', 'triad-source-fingerprint');
  const fingerprint = sourceFingerprint();
  const built =
    fs.existsSync(path.join(root, '.next', 'BUILD_ID')) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === fingerprint;
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
  fs.writeFileSync(stamp, fingerprint);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildIfNeeded();
}
