import { findOrgByToken } from '@/lib/auth/credentials';
import { safeEqual } from '@/lib/auth/tokens';
import type { Db } from '@/lib/db/client';
import { aliasNotFound, aliasNotFoundForJwt, unauthorized } from '@/lib/errors/link';
import { type Alias, findAliasById, isExpired, OWNER, toWire } from './aliases';
import { AliasJwtError, looksLikeJwt, verifyAliasJwt } from './jwt';
import { ALIAS_ID_PATTERN, type AliasWire } from './schema';

/**
 * Retrieve by id (spec 4.7, 4.9; DESIGN.md §6), in this order:
 *  1. the owning organization's token → the full alias;
 *  2. an alias with neither passcode nor jwt_secret → public;
 *  3. `?passcode=` equal to the alias passcode → allowed;
 *  4. `Authorization: Bearer <JWT>` verified with the alias jwt_secret;
 *  5. otherwise 400 NOT_FOUND, the same reply as an unknown id, so existence does not leak.
 * Grants 2–4 end at expired_at; a non-owner never sees passcode or jwt_secret, and sees
 * stream_key only with a JWT whose `host` claim is true.
 */
export async function retrieveAlias(
  db: Db,
  {
    id,
    bearer,
    passcode,
    maxJwtLifetimeS,
    cacheTtlMs = 0,
  }: { id: string; bearer: string | null; passcode?: string; maxJwtLifetimeS: number; cacheTtlMs?: number },
): Promise<AliasWire> {
  const jwt = bearer && looksLikeJwt(bearer) ? bearer : null;
  const alias = ALIAS_ID_PATTERN.test(id) ? await findAliasById(db, id, { cacheTtlMs }) : null;
  if (!alias) throw jwt ? aliasNotFoundForJwt() : aliasNotFound();

  if (bearer && !jwt) {
    const org = await findOrgByToken(db, bearer);
    if (org && org.id === alias.orgId) return view(alias, OWNER);
  }
  if (!isExpired(alias)) {
    const publicAccess = alias.passcode === null && alias.jwtSecret === null;
    if (publicAccess || (passcode !== undefined && alias.passcode !== null && safeEqual(passcode, alias.passcode))) {
      return view(alias, { passcode: false, jwtSecret: false, streamKey: false });
    }
    if (jwt && alias.jwtSecret !== null) {
      try {
        const claims = await verifyAliasJwt(jwt, { secret: alias.jwtSecret, aliasId: alias.id, maxLifetimeS: maxJwtLifetimeS });
        return view(alias, { passcode: false, jwtSecret: false, streamKey: claims.host });
      } catch (e) {
        if (e instanceof AliasJwtError) throw unauthorized(e.message);
        throw e;
      }
    }
  }
  throw aliasNotFound();
}

const view = (alias: Alias, reveal: { passcode: boolean; jwtSecret: boolean; streamKey: boolean }) =>
  toWire(alias, { reveal, insertedAt: true });
