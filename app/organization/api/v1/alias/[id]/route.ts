import { retrieveAlias } from '@/lib/aliases/access';
import { accessAttempts } from '@/lib/aliases/attempts';
import { aliasPathParams, retrieveAliasQuerySchema } from '@/lib/aliases/schema';
import { config } from '@/lib/config';
import { aliasNotFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/**
 * Retrieve alias by id (interface 4.7, 4.9): owner token, public, `?passcode=` or a JWT; see lib/aliases/access.ts.
 * Counted per organization token when one is sent, else per client address; failed passcodes and JWTs apart.
 */
export const GET = route(
  { auth: 'aliasAccess', params: aliasPathParams, query: retrieveAliasQuerySchema, badInput: aliasNotFound },
  async ({ db, params, query, bearer, address }) =>
    json({
      data: await retrieveAlias(db, {
        id: params.id,
        bearer,
        passcode: query.passcode,
        maxJwtLifetimeS: config().TRIAD_JWT_MAX_LIFETIME_S,
        cacheTtlMs: config().TRIAD_ALIAS_CACHE_TTL_MS,
        authCacheTtlMs: config().TRIAD_AUTH_CACHE_TTL_MS,
        attempts: accessAttempts(address),
      }),
    }),
);
