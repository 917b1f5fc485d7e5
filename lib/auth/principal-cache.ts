/**
 * A short-lived, in-process cache of credential lookups (by the credential's hash), so that a hot
 * API key or org token does not cost a database query on every request. A revocation made through
 * this process clears it at once; one made by another process (another instance, or the CLI on
 * PostgreSQL) takes effect within TRIAD_AUTH_CACHE_TTL_MS. Unknown credentials are never cached.
 */
const MAX_ENTRIES = 10_000;
// On globalThis: every route bundle of the server must see (and clear) the same cache.
const G = Symbol.for('triad.principalCache');
const entries: Map<string, { value: unknown; until: number }> = ((globalThis as Record<symbol, unknown>)[G] ??= new Map()) as Map<
  string,
  { value: unknown; until: number }
>;

export async function cachedPrincipal<T>(key: string, ttlMs: number, load: () => Promise<T | null>): Promise<T | null> {
  if (ttlMs > 0) {
    const hit = entries.get(key);
    if (hit && hit.until > Date.now()) return hit.value as T;
  }
  const value = await load();
  if (value !== null && ttlMs > 0) {
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
    entries.set(key, { value, until: Date.now() + ttlMs });
  } else {
    entries.delete(key);
  }
  return value;
}

export function forgetPrincipals(): void {
  entries.clear();
}
