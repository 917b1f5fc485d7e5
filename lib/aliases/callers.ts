import { hashToken } from '@/lib/auth/tokens';
import type { Caller } from '@/lib/core/caller';
import { looksLikeJwt } from './jwt';

/**
 * `aliasAccess` (retrieve by id): an org token, a JWT, a passcode or nothing; the access rules
 * (./access.ts) decide what each may see. An org token is counted on its alias rate wherever it comes
 * from; a JWT, a passcode or nothing per client address.
 */
export async function aliasCaller(caller: Caller): Promise<{ bearer: string | null; address: string }> {
  const { bearer } = caller;
  if (bearer && !looksLikeJwt(bearer)) await caller.perSecond('link', hashToken(bearer));
  else await caller.perSecond('address', caller.address());
  return { bearer, address: caller.address() };
}
