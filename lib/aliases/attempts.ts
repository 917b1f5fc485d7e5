import { config } from '@/lib/config';
import { consume, peek } from '@/lib/rate-limit';

/**
 * Failed passcode and JWT attempts at retrieving an alias, limited per alias and per client address
 * (TRIAD_ACCESS_FAILURES_PER_MIN a minute, shared through Redis when set). Once either is used up,
 * every attempt with credentials waits for the minute to end, a right one too: otherwise a guesser
 * would go on at full speed and learn the passcode from the one reply that is not a 429.
 */
export type AccessAttempts = {
  /** Seconds to wait before another attempt on this alias from this client, 0 when it may go ahead. */
  wait(aliasId: string): Promise<number>;
  /** Counts a failed attempt. */
  failed(aliasId: string): Promise<void>;
};

const WINDOW_S = 60;

export function accessAttempts(clientAddress: string): AccessAttempts {
  const limit = config().TRIAD_ACCESS_FAILURES_PER_MIN;
  return {
    async wait(aliasId) {
      const [byAlias, byClient] = await Promise.all([
        peek('alias-failures', aliasId, limit, WINDOW_S),
        peek('client-failures', clientAddress, limit, WINDOW_S),
      ]);
      return Math.max(byAlias.retryAfterS, byClient.retryAfterS);
    },
    async failed(aliasId) {
      await Promise.all([consume('alias-failures', aliasId, limit, WINDOW_S), consume('client-failures', clientAddress, limit, WINDOW_S)]);
    },
  };
}

/** For callers that limit nothing (tests of the access rules themselves). */
export const unlimitedAttempts: AccessAttempts = { wait: async () => 0, failed: async () => {} };
