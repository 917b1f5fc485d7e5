import { whenQuiet } from '@/lib/core/in-flight';
import { shared } from '@/lib/core/runtime';

/**
 * A short-lived, in-process cache of credential lookups (by the credential's hash), so that a hot
 * API key or org token does not cost a database query on every request. A revocation made through
 * this process clears it at once; one made by another process (another instance, or the CLI on
 * PostgreSQL) takes effect within TRIAD_AUTH_CACHE_TTL_MS (2 s there). On the embedded database no
 * other process can make one, so an entry is kept a minute: a key used every few seconds is not
 * looked up again each time (on the server's own thread, 2–6 ms in that request's path: docs/benchmarks.md).
 * Unknown credentials are never cached.
 *
 * A credential in use is looked up again ahead of its expiry, in the background (once it is past half
 * its time), so that requests never wait for that lookup; an entry is never served past its expiry.
 * The lookup waits for a moment with no request in flight (on the embedded database it runs on the
 * server's own thread: 2–3 ms that a request waiting for its model server's reply would otherwise wait
 * too), or at the latest until nine tenths of the entry's time has passed.
 */
const MAX_ENTRIES = 10_000;
type Entry = { value: unknown; until: number; refreshing: boolean };
type Cache = { entries: Map<string, Entry>; generation: number };
declare module '@/lib/core/runtime' {
  interface Runtime {
    principalCache: Cache;
  }
}
// Shared: every route bundle of the server must see (and clear) the same cache.
const cache = shared('principalCache', () => ({ entries: new Map(), generation: 0 }));

export async function cachedPrincipal<T>(key: string, ttlMs: number, load: () => Promise<T | null>): Promise<T | null> {
  if (ttlMs > 0) {
    const hit = cache.entries.get(key);
    const now = Date.now();
    if (hit && hit.until > now) {
      if (!hit.refreshing && hit.until - now < ttlMs / 2) refreshAhead(key, hit, ttlMs, load);
      return hit.value as T;
    }
  }
  const generation = cache.generation;
  const value = await load();
  store(key, value, ttlMs, generation);
  return value;
}

function refreshAhead<T>(key: string, entry: Entry, ttlMs: number, load: () => Promise<T | null>) {
  entry.refreshing = true;
  const generation = cache.generation;
  whenQuiet(
    () => {
      load().then(
        (value) => store(key, value, ttlMs, generation),
        () => (entry.refreshing = false), // tried again by a later request; the entry still expires on time
      );
    },
    entry.until - ttlMs / 10 - Date.now(),
  );
}

/** Keeps a lookup's result, unless the cache was cleared since the lookup began (a revocation may have won the race). */
function store(key: string, value: unknown, ttlMs: number, generation: number) {
  if (generation !== cache.generation) return;
  if (value !== null && ttlMs > 0) {
    cache.entries.delete(key);
    if (cache.entries.size >= MAX_ENTRIES) cache.entries.delete(cache.entries.keys().next().value!);
    cache.entries.set(key, { value, until: Date.now() + ttlMs, refreshing: false });
  } else {
    cache.entries.delete(key);
  }
}

export function forgetPrincipals(): void {
  cache.generation++;
  cache.entries.clear();
}
