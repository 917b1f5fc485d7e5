import { retrieveAlias } from '@/lib/aliases/access';
import { accessAttempts } from '@/lib/aliases/attempts';
import { looksLikeJwt } from '@/lib/aliases/jwt';
import { retrieveAliasQuerySchema } from '@/lib/aliases/schema';
import { bearerToken, hashToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { aliasNotFound } from '@/lib/errors/link';
import { limitRequests, linkRoute } from '@/lib/http/link-route';
import { clientAddress } from '@/lib/http/peer';
import { parseWith, queryObject } from '@/lib/http/validation';

/**
 * Retrieve alias by id (interface 4.7, 4.9): owner token, public, `?passcode=` or a JWT; see lib/aliases/access.ts.
 * Counted per organization token when one is sent, else per client address; failed passcodes and JWTs apart.
 */
export const GET = linkRoute<{ id: string }>(
  async ({ request, db, params }) => {
    const bearer = bearerToken(request.headers.get('authorization'));
    const address = clientAddress(request);
    const limitHeaders =
      bearer && !looksLikeJwt(bearer) ? await limitRequests('link', hashToken(bearer)) : await limitRequests('address', address);
    const { passcode } = parseWith(retrieveAliasQuerySchema, queryObject(request.url));
    const data = await retrieveAlias(db, {
      id: params.id,
      bearer,
      passcode,
      maxJwtLifetimeS: config().TRIAD_JWT_MAX_LIFETIME_S,
      cacheTtlMs: config().TRIAD_ALIAS_CACHE_TTL_MS,
      authCacheTtlMs: config().TRIAD_AUTH_CACHE_TTL_MS,
      attempts: accessAttempts(address),
    });
    return Response.json({ data }, { headers: { ...limitHeaders, 'Cache-Control': 'no-store' } });
  },
  { badInput: aliasNotFound },
);
