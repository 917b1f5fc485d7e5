import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The import graph points one way: route handlers (app/) and route wrappers (lib/http/) use the domain
 * folders, which use lib/core/ (input errors, cursors, replies) and lib/db/, never the HTTP layer; the
 * completion path goes down its floors (FLOORS); no files import each other in a circle; and scripts/ (tools, benchmarks, shared test helpers) never imports e2e/.
 */
const root = path.resolve(import.meta.dirname, '../..');
const DOMAIN = [
  'lib/core',
  'lib/pipeline',
  'lib/dialects',
  'lib/tunnel',
  'lib/embeddings',
  'lib/stats',
  'lib/aliases',
  'lib/chat',
  'lib/providers',
  'lib/console',
  'lib/auth',
  'lib/admin',
  'lib/db',
  'lib/errors',
  'lib/observability',
];

function sources(dir: string): string[] {
  if (/\.tsx?$/.test(dir)) return [dir];
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .flatMap((e) => (e.isFile() && /\.(ts|tsx|mjs)$/.test(e.name) ? [path.relative(root, path.join(e.parentPath, e.name))] : []));
}
const importsOf = (file: string) =>
  [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/^(?:import|export)\b[^;]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);
const resolved = (file: string, spec: string) =>
  spec.startsWith('@/') ? spec.slice(2) : spec.startsWith('.') ? path.join(path.dirname(file), spec) : spec;
/** The file an import names, when it is one of this tree's. */
const fileOf = (target: string) =>
  [`${target}.ts`, `${target}.tsx`, `${target}/index.ts`, target].find((f) => /\.tsx?$/.test(f) && fs.existsSync(path.join(root, f)));
const isTest = (f: string) => /\.test\.tsx?$/.test(f);

/**
 * The floors of the completion path (design §16), from the ground up: the tunnel's wire (shared with
 * the node agent) and the core; the database; the language the model servers speak (lib/chat) and
 * the credentials; the providers (which publish events and import no statistics); the statistics
 * (which subscribe to them) and the aliases; the tunnel's server side; the pipeline; the dialects and
 * the other API surfaces. A path's floor is its longest listed prefix's.
 */
const FLOORS = [
  [
    'lib/core',
    'lib/config.ts',
    'lib/errors',
    'lib/log.ts',
    'lib/metrics.ts',
    'lib/tunnel/protocol.ts',
    'lib/tunnel/channel.ts',
    'lib/observability/context.ts',
    'lib/observability/genai-metrics.ts',
  ],
  ['lib/db', 'lib/rate-limit.ts', 'lib/shutdown.ts', 'lib/observability'],
  ['lib/chat', 'lib/auth'],
  ['lib/providers'],
  ['lib/stats', 'lib/aliases'],
  ['lib/tunnel'],
  ['lib/pipeline'],
  ['lib/dialects', 'lib/embeddings'],
];
function floorOf(path: string): number | null {
  const file = /\.tsx?$/.test(path) ? path : `${path}.ts`;
  let best: { n: number; length: number } | null = null;
  FLOORS.forEach((prefixes, n) => {
    for (const p of prefixes)
      if ((file === p || file.startsWith(`${p}/`)) && (!best || p.length > best.length)) best = { n, length: p.length };
  });
  return (best as { n: number } | null)?.n ?? null;
}

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

  it('the completion path goes down: each floor imports only its own and the floors below it', () => {
    const up = FLOORS.flatMap((_, n) =>
      FLOORS[n]!.flatMap(sources).flatMap((file) =>
        isTest(file) || floorOf(file) !== n
          ? []
          : importsOf(file)
              .map((spec) => resolved(file, spec))
              .filter((target) => (floorOf(target) ?? -1) > n)
              .map((target) => `${file} (floor ${n}) → ${target} (floor ${floorOf(target)})`),
      ),
    );
    expect(up).toEqual([]);
  });

  it('no modules of lib/ or app/ import each other in a circle (type imports included)', () => {
    const files = [...sources('lib'), ...sources('app')].filter((f) => !isTest(f));
    const edges = new Map(files.map((f) => [f, importsOf(f).flatMap((spec) => fileOf(resolved(f, spec)) ?? [])]));
    // Tarjan's strongly connected components: a component of more than one file is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const circles: string[][] = [];
    let next = 0;
    const visit = (f: string) => {
      index.set(f, next);
      low.set(f, next++);
      stack.push(f);
      for (const g of edges.get(f) ?? []) {
        if (!index.has(g)) {
          visit(g);
          low.set(f, Math.min(low.get(f)!, low.get(g)!));
        } else if (stack.includes(g)) low.set(f, Math.min(low.get(f)!, index.get(g)!));
      }
      if (low.get(f) === index.get(f)) {
        const component: string[] = [];
        let g: string;
        do component.push((g = stack.pop()!));
        while (g !== f);
        if (component.length > 1) circles.push(component.sort());
      }
    };
    for (const f of files) if (!index.has(f)) visit(f);
    expect(circles).toEqual([]);
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
