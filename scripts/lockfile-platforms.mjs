// The npm registry reachable here does not serve every platform build of optional dependencies
// (e.g. @next/swc-darwin-arm64). `npm install` then leaves them out of package-lock.json, and
// `npm ci` refuses the lock file ("Missing: … from lock file"). This adds a stub entry for each such
// optional package, marked with the os/cpu/libc its name says, so that `npm ci` skips it on this
// platform as it would any foreign build. Run it after `npm install` changes the lock file:
//   node scripts/lockfile-platforms.mjs [--check]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

/** Where node would find `name` from the package at `from` (a lock key). */
function resolves(from, name) {
  let dir = from;
  for (;;) {
    if (packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (!dir) return false;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut < 0 ? '' : dir.slice(0, cut);
  }
}

const platform = (name) => {
  const n = name.toLowerCase();
  const pick = (table) => table.filter(([re]) => re.test(n)).map(([, v]) => v);
  const os = pick([
    [/darwin/, 'darwin'],
    [/win32/, 'win32'],
    [/linux/, 'linux'],
    [/android/, 'android'],
    [/freebsd/, 'freebsd'],
    [/openbsd/, 'openbsd'],
    [/netbsd/, 'netbsd'],
    [/sunos/, 'sunos'],
    [/aix/, 'aix'],
    [/openharmony/, 'openharmony'],
  ]);
  const cpu = pick([
    [/wasm32/, 'wasm32'],
    [/arm64|aarch64/, 'arm64'],
    [/(^|[-_])arm($|[-_])|armv7|gnueabihf|musleabihf|arm-eabi/, 'arm'],
    [/x64|x86_64/, 'x64'],
    [/ia32/, 'ia32'],
    [/loong64/, 'loong64'],
    [/ppc64/, 'ppc64'],
    [/riscv64/, 'riscv64'],
    [/s390x/, 's390x'],
    [/mips/, 'mips'],
  ]);
  const libc = pick([
    [/musl/, 'musl'],
    [/gnu(?!eabi)|gnueabihf/, 'glibc'],
  ]);
  return {
    ...(os.length ? { os } : {}),
    ...(cpu.length ? { cpu: [...new Set(cpu)] } : {}),
    ...(libc.length && os.includes('linux') ? { libc } : {}),
  };
};

const added = [];
for (const [key, pkg] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(pkg.optionalDependencies ?? {})) {
    if (resolves(key, name)) continue;
    const where = platform(name);
    if (!where.os && !where.cpu) continue; // not a platform build: a real gap, leave it to npm
    packages[`node_modules/${name}`] = { version: String(spec).replace(/^[\^~=]/, ''), optional: true, ...where };
    added.push(name);
  }
}

if (process.argv.includes('--check')) {
  if (added.length) {
    console.error(
      `package-lock.json lacks ${added.length} platform builds (${added.slice(0, 3).join(', ')}…); run: node scripts/lockfile-platforms.mjs`,
    );
    process.exit(1);
  }
} else if (added.length) {
  lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
  console.log(`added ${added.length} stub entries for platform builds this registry does not serve`);
} else {
  console.log('package-lock.json is complete');
}
