import { type ApiKeyPrincipal, SUSPENDED } from '@/lib/auth/credentials';
import { config } from '@/lib/config';
import type { Caller } from '@/lib/core/caller';
import { getDb } from '@/lib/db/client';
import { playgroundKey } from './playground';
import { csrfMatches, findSession, type Session, sessionSecret } from './sessions';

/*
 * Console sessions as an auth scheme's principal (design §11): with no bearer token, the session
 * cookie. A call made with the cookie that changes state (any method but GET, HEAD, OPTIONS) must
 * carry the session's CSRF token in `X-CSRF-Token` and an `Origin` equal to this server's own, else 403.
 */

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The console session of a call without a bearer token, of `role` (`any`: either); null when it has no session cookie. */
export async function consoleSession(caller: Caller, role: Session['role'] | 'any'): Promise<Session | null> {
  const { format } = caller;
  const secret = caller.bearer ? null : sessionSecret(caller.header('cookie'));
  if (!secret) return null;
  const found = await findSession(await getDb(), secret);
  if (!found) throw format.unauthorized('the console session has ended (signed out, expired or its token revoked); sign in again');
  if (found.suspended) throw format.forbidden(SUSPENDED);
  if (role !== 'any' && found.role !== role) {
    throw format.forbidden(
      role === 'admin'
        ? "an instance administrator's session is needed (sign in with an admin token)"
        : "an organization's session is needed (sign in with an org token)",
    );
  }
  requireSameOrigin(caller);
  if (!SAFE_METHODS.has(caller.method) && !csrfMatches(secret, caller.header('x-csrf-token'))) {
    throw format.forbidden("a console call that changes something needs the session's CSRF token in X-CSRF-Token");
  }
  return found;
}

/**
 * A cookie call whose `Origin` is another site's is refused; a browser sends `Origin` with every
 * request that can change state, so one without it is refused too unless it only reads.
 */
export function requireSameOrigin(caller: Pick<Caller, 'header' | 'method' | 'format' | 'ownOrigin'>): void {
  const origin = caller.header('origin');
  if (!origin && SAFE_METHODS.has(caller.method)) return;
  const own = caller.ownOrigin().toLowerCase();
  if (origin?.toLowerCase() !== own)
    throw caller.format.forbidden(`the request's Origin (${origin ?? 'none'}) is not this server's (${own})`);
}

/** `apiKey` with an organization's session: the playground's key, counted on its rate a minute. */
export async function playgroundHolder(caller: Caller, session: Session): Promise<ApiKeyPrincipal> {
  const apiKey = await playgroundKey(await getDb(), session.org!.id);
  await caller.count('chat', `playground:${apiKey.id}`, apiKey.rpm ?? config().TRIAD_DEFAULT_RPM, 60);
  return apiKey;
}
