import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The import graph points one way: route handlers (app/) and route wrappers (lib/http/) use the domain
 * folders, which use lib/core/ (input errors, cursors, replies) and lib/db/, never the HTTP layer; and
 * scripts/ (tools, benchmarks, shared test helpers) never imports e2e/.
 */
const root = path.resolve(import.meta.dirname, '../..');
const DOMAIN = ['lib/core', 'lib/stats', 'lib/aliases', 'lib/chat', 'lib/auth', 'lib/admin', 'lib/db', 'lib/errors'];

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .flatMap((e) => (e.isFile() && /\.(ts|tsx|mjs)$/.test(e.name) ? [path.relative(root, path.join(e.parentPath, e.name))] : []));
}
const importsOf = (file: string) =>
  [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/^(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
const resolved = (file: string, spec: string) =>
  spec.startsWith('@/') ? spec.slice(2) : spec.startsWith('.') ? path.join(path.dirname(file), spec) : spec;

describe('layers', () => {
  it('no domain module imports the HTTP layer', () => {
    const upward = DOMAIN.flatMap(sources).flatMap((file) =>
      importsOf(file)
        .map((spec) => resolved(file, spec))
        .filter((target) => target.startsWith('lib/http'))
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('scripts/ never imports e2e/', () => {
    const found = sources('scripts').flatMap((file) =>
      importsOf(file)
        .map((spec) => resolved(file, spec))
        .filter((target) => target.startsWith('e2e'))
        .map((target) => `${file} → ${target}`),
    );
    expect(found).toEqual([]);
  });

  it('the server and the app are TypeScript, and share state only through lib/core/runtime.ts', () => {
    const files = [...sources('lib'), ...sources('app')];
    expect(files.filter((f) => f.endsWith('.mjs'))).toEqual([]);
    const globals = files.filter(
      (f) => !f.endsWith('.test.ts') && /Symbol\.for\(|globalThis\[/.test(fs.readFileSync(path.join(root, f), 'utf8')),
    );
    expect(globals).toEqual([]);
  });
});
