import { findOrgByToken, type Organization } from '@/lib/auth/credentials';
import { cachedPrincipal } from '@/lib/auth/principal-cache';
import { bearerToken, hashToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { getDb } from '@/lib/db/client';
import { internalError, invalidParameters, LinkError, linkErrorResponse, payloadTooLarge, tooManyRequests, unauthorized } from '@/lib/errors/link';
import { consume, rateLimitHeaders } from '@/lib/rate-limit';
import { log } from '@/lib/log';
import { BodyTooLargeError, MalformedJsonError } from './body';
import { BadInputError } from './validation';

/*
 * Route wrappers for the `{error:{message,status}}` wire format (statistics, aliases and
 * Triad's own routes). A handler throws; the wrapper shapes every error, so no handler
 * builds an error body by hand and no stack trace reaches a client.
 */

type Db = Awaited<ReturnType<typeof getDb>>;
type RouteContext<P> = { params: Promise<P> };
export type LinkContext<P> = { request: Request; params: P; db: Db };
type Options = {
  /** The group's reply to input that fails its schema (stats: INVALID_PARAMETERS; aliases: NOT_FOUND). */
  badInput?: (detail: string) => LinkError;
  /** Count requests per organization token (TRIAD_LINK_RATE_PER_S a second), before the token is even looked up. */
  rateLimited?: boolean;
};

export function linkRoute<P = Record<string, never>>(
  handler: (ctx: LinkContext<P>) => Promise<Response>,
  options: Options = {},
) {
  const badInput = options.badInput ?? invalidParameters;
  return async (request: Request, context: RouteContext<P>): Promise<Response> => {
    try {
      const db = await getDb();
      return await handler({ request, params: await context.params, db });
    } catch (e) {
      return linkErrorResponse(toLinkError(e, badInput, request));
    }
  };
}

function toLinkError(e: unknown, badInput: (detail: string) => LinkError, request: Request): LinkError {
  if (e instanceof LinkError) return e;
  if (e instanceof BadInputError) return badInput(e.detail);
  if (e instanceof MalformedJsonError) return badInput(e.message);
  if (e instanceof BodyTooLargeError) return payloadTooLarge(e.limit);
  log.error('unhandled error', { method: request.method, path: new URL(request.url).pathname, error: (e as Error)?.message });
  return internalError();
}

/** Like linkRoute, and the caller must present a valid organization token (`Bearer` form or bare). */
export function withOrgToken<P = Record<string, never>>(
  handler: (ctx: LinkContext<P> & { org: Organization }) => Promise<Response>,
  options: Options = {},
) {
  return linkRoute<P>(async (ctx) => {
    const token = bearerToken(ctx.request.headers.get('authorization'));
    if (!token) throw unauthorized('missing Authorization header with an organization token');
    const hash = hashToken(token);
    let limitHeaders: Record<string, string> = {};
    if (options.rateLimited) {
      const rate = config().TRIAD_LINK_RATE_PER_S;
      const decision = await consume('link', hash, rate, 1);
      limitHeaders = rateLimitHeaders(decision);
      if (!decision.allowed) throw tooManyRequests(decision.retryAfterS, limitHeaders);
    }
    const org = await cachedPrincipal(`org:${hash}`, config().TRIAD_AUTH_CACHE_TTL_MS, () => findOrgByToken(ctx.db, token));
    if (!org) throw unauthorized('the organization token is invalid or revoked');
    const response = await handler({ ...ctx, org });
    for (const [k, v] of Object.entries(limitHeaders)) response.headers.set(k, v);
    return response;
  }, options);
}
