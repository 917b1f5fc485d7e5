import { findOrgByToken, SUSPENDED } from '@/lib/auth/credentials';
import { cachedPrincipal } from '@/lib/auth/principal-cache';
import { hashToken } from '@/lib/auth/tokens';
import { safeEqual } from '@/lib/auth/tokens';
import type { Db } from '@/lib/db/client';
import { aliasNotFound, aliasNotFoundForJwt, forbidden, tooManyRequests, unauthorized } from '@/lib/errors/link';
import type { Alias } from './alias';
import { findAliasById, isExpired, OWNER, toWire } from './aliases';
import { type AccessAttempts, unlimitedAttempts } from './attempts';
import { AliasJwtError, looksLikeJwt, verifyAliasJwt } from './jwt';
import { ALIAS_ID_PATTERN, type AliasWire } from './schema';

/**
 * Retrieve by id (interface 4.7, 4.9; design §6), in this order:
 *  1. the owning organization's token → the full alias;
 *  2. an alias with neither passcode nor jwt_secret → public;
 *  3. `?passcode=` equal to the alias passcode → allowed;
 *  4. `Authorization: Bearer <JWT>` verified with the alias jwt_secret;
 *  5. otherwise 400 NOT_FOUND, the same reply as an unknown id, so existence does not leak.
 * Grants 2–4 end at expired_at; a non-owner never sees passcode or jwt_secret, and sees
 * stream_key only with a JWT whose `host` claim is true. Failed passcode and JWT attempts are counted
 * by `attempts`: past its limit, any attempt with credentials is 429 until the window ends.
 */
export async function retrieveAlias(
  db: Db,
  {
    id,
    bearer,
    passcode,
    maxJwtLifetimeS,
    cacheTtlMs = 0,
    authCacheTtlMs = 0,
    attempts = unlimitedAttempts,
  }: {
    id: string;
    bearer: string | null;
    passcode?: string;
    maxJwtLifetimeS: number;
    cacheTtlMs?: number;
    authCacheTtlMs?: number;
    attempts?: AccessAttempts;
  },
): Promise<AliasWire> {
  const jwt = bearer && looksLikeJwt(bearer) ? bearer : null;
  const alias = ALIAS_ID_PATTERN.test(id) ? await findAliasById(db, id, { cacheTtlMs }) : null;
  if (!alias) throw jwt ? aliasNotFoundForJwt() : aliasNotFound();

  if (bearer && !jwt) {
    // The same credential cache as every other org-token route: a revocation reaches it within TRIAD_AUTH_CACHE_TTL_MS.
    const org = await cachedPrincipal(`org:${hashToken(bearer)}`, authCacheTtlMs, () => findOrgByToken(db, bearer));
    if (org?.suspended) throw forbidden(SUSPENDED);
    if (org && org.id === alias.orgId) return view(alias, OWNER);
  }
  if (isExpired(alias)) throw aliasNotFound();
  if (alias.passcode === null && alias.jwtSecret === null) return view(alias, { passcode: false, jwtSecret: false, streamKey: false });

  const triesPasscode = passcode !== undefined && alias.passcode !== null;
  const triesJwt = jwt !== null && alias.jwtSecret !== null;
  if (!triesPasscode && !triesJwt) throw aliasNotFound();
  const wait = await attempts.wait(alias.id);
  if (wait > 0) throw tooManyRequests(wait);
  if (triesPasscode && safeEqual(passcode, alias.passcode!)) return view(alias, { passcode: false, jwtSecret: false, streamKey: false });
  if (triesJwt) {
    try {
      const claims = await verifyAliasJwt(jwt, { secret: alias.jwtSecret!, aliasId: alias.id, maxLifetimeS: maxJwtLifetimeS });
      return view(alias, { passcode: false, jwtSecret: false, streamKey: claims.host });
    } catch (e) {
      if (!(e instanceof AliasJwtError)) throw e;
      await attempts.failed(alias.id);
      throw unauthorized(e.message);
    }
  }
  await attempts.failed(alias.id);
  throw aliasNotFound();
}

const view = (alias: Alias, reveal: { passcode: boolean; jwtSecret: boolean; streamKey: boolean }) =>
  toWire(alias, { reveal, insertedAt: true });
