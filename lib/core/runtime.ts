/*
 * The process's shared state, in one typed object. One process loads Triad's code more than once —
 * Next's bundles (instrumentation, each route) and the server's own bundle (lib/server) each hold a
 * copy of every module — yet there must be one database, one rate limiter, one credential cache, one
 * metrics registry, one list of shutdown hooks. Each module that owns such state declares its slot on
 * Runtime (declaration merging: `declare module '@/lib/core/runtime' { interface Runtime { … } }`)
 * and reaches it through `shared`, which makes it on first use.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the modules that own a slot
export interface Runtime {}

const HOLDER = '__triadRuntime';
type Holder = { [HOLDER]?: Partial<Runtime> };

/** This process's `key` slot, made by `make` on first use (by whichever copy of the code gets there first). */
export function shared<K extends keyof Runtime>(key: K, make: () => Runtime[K]): Runtime[K] {
  const slots = ((globalThis as Holder)[HOLDER] ??= {});
  return (slots[key] ??= make()) as Runtime[K];
}
