import { config } from '@/lib/config';
import { consume, peek, rateLimitHeaders } from '@/lib/rate-limit';

/**
 * Requests with an API key or organization token this server does not know, counted per client
 * address (TRIAD_ADDRESS_RATE_PER_S a second, shared through Redis when set). Unknown credentials are
 * never cached, so each costs a database lookup: past the rate, an address is answered 429 without one
 * until its second ends. Runs only when the credential is not in the cache, so a known, cached
 * credential is never held up or slowed by it.
 */
export async function lookUpCredential<T>(
  address: string,
  tooMany: (retryAfterS: number, headers: Record<string, string>) => Error,
  find: () => Promise<T | null>,
): Promise<T | null> {
  const limit = config().TRIAD_ADDRESS_RATE_PER_S;
  const seen = await peek('unknown-credentials', address, limit, 1);
  if (!seen.allowed) throw tooMany(seen.retryAfterS, rateLimitHeaders(seen));
  const found = await find();
  if (!found) await consume('unknown-credentials', address, limit, 1);
  return found;
}
