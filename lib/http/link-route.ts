import { findOrgByToken, type Organization } from '@/lib/auth/credentials';
import { cachedPrincipal } from '@/lib/auth/principal-cache';
import { bearerToken, hashToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { type Db, getDb } from '@/lib/db/client';
import {
  internalError,
  invalidParameters,
  LinkError,
  linkErrorResponse,
  payloadTooLarge,
  tooManyRequests,
  unauthorized,
} from '@/lib/errors/link';
import { consume, rateLimitHeaders } from '@/lib/rate-limit';
import { log } from '@/lib/log';
import { BodyTooLargeError, MalformedJsonError } from './body';
import { clientAddress } from './peer';
import { lookUpCredential } from './unknown-credentials';
import { BadInputError } from './validation';

/*
 * Route wrappers for the `{error:{message,status}}` wire format (statistics, aliases and
 * Triad's own routes). A handler throws; the wrapper shapes every error, so no handler
 * builds an error body by hand and no stack trace reaches a client.
 */

type RouteContext<P> = { params: Promise<P> };
export type LinkContext<P> = { request: Request; params: P; db: Db };
/**
 * Request rates, each a second: `link` per organization token on the alias group (the public
 * reference's 60/s), `stats` per organization token on statistics and ingestion, `address` per
 * client address on the routes a caller reaches without a token.
 */
const RATES = {
  link: () => config().TRIAD_LINK_RATE_PER_S,
  stats: () => config().TRIAD_STATS_RATE_PER_S,
  address: () => config().TRIAD_ADDRESS_RATE_PER_S,
};
export type Limiter = keyof typeof RATES;

/** Counts one request of `key` on `limiter`; throws the 429 (with Retry-After) past it, else gives the X-RateLimit-* headers. */
export async function limitRequests(limiter: Limiter, key: string): Promise<Record<string, string>> {
  const decision = await consume(limiter, key, RATES[limiter](), 1);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) throw tooManyRequests(decision.retryAfterS, headers);
  return headers;
}

/**
 * For a route that answers without linkRoute (health must answer 503 itself when the database is
 * down): counts one request of the client's address; the 429 reply past its rate, else the
 * X-RateLimit-* headers for the route's own reply.
 */
export async function addressRate(request: Request): Promise<{ refused: Response } | { headers: Record<string, string> }> {
  try {
    return { headers: await limitRequests('address', clientAddress(request)) };
  } catch (e) {
    if (e instanceof LinkError) return { refused: linkErrorResponse(e) };
    throw e;
  }
}

type Options = {
  /** The group's reply to input that fails its schema (stats: INVALID_PARAMETERS; aliases: NOT_FOUND). */
  badInput?: (detail: string) => LinkError;
  /** Count requests per client address (TRIAD_ADDRESS_RATE_PER_S a second): for routes reached without a token. */
  perAddress?: boolean;
};

export function linkRoute<P = Record<string, never>>(handler: (ctx: LinkContext<P>) => Promise<Response>, options: Options = {}) {
  const badInput = options.badInput ?? invalidParameters;
  return async (request: Request, context: RouteContext<P>): Promise<Response> => {
    let response: Response;
    try {
      const limitHeaders = options.perAddress ? await limitRequests('address', clientAddress(request)) : {};
      const db = await getDb();
      response = withHeaders(await handler({ request, params: await context.params, db }), limitHeaders);
    } catch (e) {
      response = linkErrorResponse(toLinkError(e, badInput, request));
    }
    // Replies of these groups carry secrets (alias passcodes, JWT secrets) or per-caller data: never stored by a cache.
    if (!response.headers.has('cache-control')) response.headers.set('Cache-Control', 'no-store');
    return response;
  };
}

const withHeaders = (response: Response, headers: Record<string, string>) => {
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
  return response;
};

function toLinkError(e: unknown, badInput: (detail: string) => LinkError, request: Request): LinkError {
  if (e instanceof LinkError) return e;
  if (e instanceof BadInputError) return badInput(e.detail);
  if (e instanceof MalformedJsonError) return badInput(e.message);
  if (e instanceof BodyTooLargeError) return payloadTooLarge(e.limit);
  // A client that hung up (say, half-way through its body) reads no reply: nothing went wrong here.
  if (request.signal.aborted) {
    log.debug('client went away', { method: request.method, path: new URL(request.url).pathname });
    return badInput('the client went away');
  }
  log.error('unhandled error', { method: request.method, path: new URL(request.url).pathname, error: (e as Error)?.message });
  return internalError();
}

/**
 * Like linkRoute, and the caller must present a valid organization token (`Bearer` form or bare),
 * whose requests are counted on `limiter` (`stats` unless said) before the token is even looked up.
 */
export function withOrgToken<P = Record<string, never>>(
  handler: (ctx: LinkContext<P> & { org: Organization }) => Promise<Response>,
  options: Omit<Options, 'perAddress'> & { limiter?: Exclude<Limiter, 'address'> } = {},
) {
  return linkRoute<P>(async (ctx) => {
    const token = bearerToken(ctx.request.headers.get('authorization'));
    if (!token) throw unauthorized('missing Authorization header with an organization token');
    const hash = hashToken(token);
    const limitHeaders = await limitRequests(options.limiter ?? 'stats', hash);
    const org = await cachedPrincipal(`org:${hash}`, config().TRIAD_AUTH_CACHE_TTL_MS, () =>
      lookUpCredential(clientAddress(ctx.request), tooManyRequests, () => findOrgByToken(ctx.db, token)),
    );
    if (!org) throw unauthorized('the organization token is invalid or revoked');
    return withHeaders(await handler({ ...ctx, org }), limitHeaders);
  }, options);
}
