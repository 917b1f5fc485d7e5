import { retrieveAlias } from '@/lib/aliases/access';
import { retrieveAliasQuerySchema } from '@/lib/aliases/schema';
import { bearerToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { aliasNotFound } from '@/lib/errors/link';
import { linkRoute } from '@/lib/http/link-route';
import { parseWith, queryObject } from '@/lib/http/validation';

/** Retrieve alias by id (spec 4.7, 4.9): owner token, public, `?passcode=` or a JWT; see lib/aliases/access.ts. */
export const GET = linkRoute<{ id: string }>(
  async ({ request, db, params }) => {
    const { passcode } = parseWith(retrieveAliasQuerySchema, queryObject(request.url));
    const data = await retrieveAlias(db, {
      id: params.id,
      bearer: bearerToken(request.headers.get('authorization')),
      passcode,
      maxJwtLifetimeS: config().TRIAD_JWT_MAX_LIFETIME_S,
      cacheTtlMs: config().TRIAD_ALIAS_CACHE_TTL_MS,
    });
    return Response.json({ data }, { headers: { 'Cache-Control': 'no-store' } });
  },
  { badInput: aliasNotFound },
);
