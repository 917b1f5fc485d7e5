import { retrieveAlias } from '@/lib/aliases/access';
import { accessAttempts } from '@/lib/aliases/attempts';
import { aliasPathParams, aliasWireSchema, retrieveAliasQuerySchema } from '@/lib/aliases/schema';
import { config } from '@/lib/config';
import { aliasNotFound } from '@/lib/errors/link';
import { dataReply, json, route } from '@/lib/http/route';

/**
 * Retrieve alias by id (interface 4.7, 4.9): owner token, public, `?passcode=` or a JWT; see lib/aliases/access.ts.
 * Counted per organization token when one is sent, else per client address; failed passcodes and JWTs apart.
 */
export const GET = route(
  {
    auth: 'aliasAccess',
    params: aliasPathParams,
    query: retrieveAliasQuerySchema,
    badInput: aliasNotFound,
    doc: {
      summary: 'Retrieve an alias: owner token, public, ?passcode= or Authorization: Bearer <JWT>',
      tag: 'Aliases',
      replies: {
        200: {
          schema: dataReply(aliasWireSchema),
          description: 'The alias with inserted_at; secrets only for the owner (stream_key also for a host JWT)',
        },
      },
      errors: [400, 401, 404, 429],
    },
  },
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
