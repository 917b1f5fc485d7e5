import { shared } from '@/lib/core/runtime';
import type { Alias } from './alias';

/**
 * A small read-through cache for retrieve-by-id, the alias API's hot path. This process's own
 * writes invalidate it at once; writes made by another instance (PostgreSQL, several instances)
 * are seen within the TTL. With the embedded database there is only one process: always coherent.
 */
const MAX_ENTRIES = 10_000;
declare module '@/lib/core/runtime' {
  interface Runtime {
    aliasCache: Map<string, { alias: Alias; until: number }>;
  }
}
// Shared: the update and delete routes must clear what the retrieve route cached.
const entries = shared('aliasCache', () => new Map());

export function cachedAlias(id: string, now = Date.now()): Alias | undefined {
  const hit = entries.get(id);
  if (!hit) return undefined;
  if (hit.until <= now) {
    entries.delete(id);
    return undefined;
  }
  return hit.alias;
}

export function cacheAlias(alias: Alias, ttlMs: number, now = Date.now()) {
  if (ttlMs <= 0) return;
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(alias.id, { alias, until: now + ttlMs });
}

export function forgetAlias(id?: string) {
  if (id === undefined) entries.clear();
  else entries.delete(id);
}
