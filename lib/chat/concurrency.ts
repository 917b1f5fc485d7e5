import { config } from '@/lib/config';
import { shared } from '@/lib/core/runtime';
import { overloaded, tooManyConcurrent } from '@/lib/errors/chat';

/*
 * Chat completions in flight (streamed or whole), per API key and in this instance: a key past
 * TRIAD_MAX_CONCURRENT_PER_KEY gets 429, the instance past TRIAD_MAX_CONCURRENT answers 503 with
 * Retry-After, at once and before any upstream is called, so that excess load is turned away cheaply
 * instead of queueing behind the work already under way. Per instance, in memory: a cluster's
 * capacity is the sum of its instances'.
 */
type InFlight = { total: number; perKey: Map<string, number> };
declare module '@/lib/core/runtime' {
  interface Runtime {
    chatInFlight: InFlight;
  }
}

const inFlight = () => shared('chatInFlight', () => ({ total: 0, perKey: new Map() }));

/** Takes a place for one completion of `apiKeyId`, or throws the 429/503; the release may be called more than once. */
export function takeCompletionSlot(apiKeyId: string): () => void {
  const { TRIAD_MAX_CONCURRENT_PER_KEY: perKeyMax, TRIAD_MAX_CONCURRENT: totalMax } = config();
  const state = inFlight();
  const mine = state.perKey.get(apiKeyId) ?? 0;
  if (mine >= perKeyMax) throw tooManyConcurrent(perKeyMax);
  if (state.total >= totalMax) throw overloaded();
  state.total++;
  state.perKey.set(apiKeyId, mine + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    state.total--;
    const left = (state.perKey.get(apiKeyId) ?? 1) - 1;
    if (left > 0) state.perKey.set(apiKeyId, left);
    else state.perKey.delete(apiKeyId);
  };
}
