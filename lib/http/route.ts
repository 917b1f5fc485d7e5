import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { readAdminSecret } from '@/lib/admin/admin-secret';
import { looksLikeJwt } from '@/lib/aliases/jwt';
import {
  type ApiKeyPrincipal,
  findAdminToken,
  findApiKey,
  findOrgByToken,
  findPartnerBySecret,
  findPartnerOfOrg,
  type Organization,
  type Partner,
  SUSPENDED,
} from '@/lib/auth/credentials';
import { cachedPrincipal } from '@/lib/auth/principal-cache';
import { playgroundKey } from '@/lib/console/playground';
import { csrfMatches, findSession, type Session, sessionSecret } from '@/lib/console/sessions';
import { bearerToken, hashToken, safeEqual, TOKEN_PREFIX } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { ApiError, type WireFormat } from '@/lib/core/errors';
import { BadInputError, parseWith } from '@/lib/core/input';
import type { Reply } from '@/lib/core/reply';
import { type Db, getDb } from '@/lib/db/client';
import { isDatabaseDown } from '@/lib/db/outage';
import { chatFormat } from '@/lib/errors/chat';
import { linkFormat } from '@/lib/errors/link';
import { log } from '@/lib/log';
import { consume, rateLimitHeaders } from '@/lib/rate-limit';
import { BodyTooLargeError, MalformedJsonError, readJsonBody, readNodeJsonBody } from './body';
import { clientAddress, isLoopbackPeer, localRoutesEnabled, requireLocalHost, viaHttps } from './peer';
import { sendNodeReply, toResponse } from './reply';
import { lookUpCredential } from '@/lib/auth/unknown-credentials';
import { queryObject } from './validation';

/*
 * The one route definition of every API route: who may call it (`auth`), how its calls are counted
 * (`limit`), the wire format of its errors (`format`), and the schemas of its query and body. The
 * definition gives one handler two doors: the Web function Next's router calls (a Request in, a
 * Response out) and, under NODE_ROUTE, the function for Node's request and response that the server's
 * direct dispatch calls (lib/server/direct-routes.ts). The handler sees the request only through
 * RequestView and answers with a Reply, so both doors run the same code and send the same bytes.
 *
 * Auth schemes:
 *  - `none`: anyone; counted per client address.
 *  - `apiKey`: `Authorization: Bearer <API_KEY>`; counted on the key's own rate a minute.
 *  - `orgToken`: an organization token (`Bearer` or bare); counted per token (`stats` or `link`).
 *  - `partner`: an organization token and `secret` (query or body) naming one of its partners.
 *  - `aliasAccess`: alias retrieve; an org token, a JWT, a passcode or nothing: counted per token, else per address.
 *  - `local`: this machine only (a loopback peer, a Host naming it, local routes on), or `localToken`.
 *  - `admin`: this machine only, with the data directory's admin secret.
 *  - `instance`: an instance administrator: an admin token (`Bearer adm_…`), an admin console session, or
 *    (the admin CLI) the local admin secret from this machine.
 *  - `session`: a console session of either role (the session's own calls: who am I, sign out).
 * Unknown credentials are counted per client address as well (./unknown-credentials.ts).
 *
 * Console sessions (design §11): with no bearer token, `orgToken`, `partner` and `apiKey` accept an
 * organization's session cookie (`apiKey` then serves on the organization's playground key) and
 * `instance` an administrator's. A call made with the cookie that changes state (any method but GET,
 * HEAD, OPTIONS) must carry the session's CSRF token in `X-CSRF-Token` and an `Origin` equal to this
 * server's own, else 403. Bearer calls are unaffected.
 */

export type Auth = 'none' | 'apiKey' | 'orgToken' | 'partner' | 'aliasAccess' | 'local' | 'admin' | 'instance' | 'session';
export type Format = 'link' | 'chat';
/** Rates a second: `link` per org token on the alias group, `stats` per org token on statistics and ingestion, `address` per client address. */
export type Limiter = 'link' | 'stats' | 'address';

/** What a handler reads of its request, whichever door it came through. */
export type RequestView = {
  method: string;
  /** The full URL (query included). */
  url: string;
  path: string;
  headers: { get(name: string): string | null };
  /** The JSON body, within TRIAD_MAX_BODY_BYTES. */
  json(): Promise<unknown>;
  /** Fires when the client goes away before the reply is complete. */
  signal: AbortSignal;
};

/** Who made a call, as the audit log names them: `session:<id>`, `org_token:<id>` or `admin_token:<id>` (never a secret). */
export type Actor = { actor: string; session: Session | null };
type Principals = {
  none: object;
  apiKey: { apiKey: ApiKeyPrincipal; session: Session | null };
  orgToken: { org: Organization } & Actor;
  partner: { org: Organization; partner: Partner } & Actor;
  aliasAccess: { bearer: string | null; address: string };
  local: object;
  admin: object;
  instance: Actor;
  session: { actor: string; session: Session };
};

export type RouteDefinition<A extends Auth, Q, B, P> = {
  auth: A;
  /** Error shape: `link` (`{error:{message,status,detail}}`, the default) or `chat` (`{error:{message,type,code,param}}`). */
  format?: Format;
  /** For `orgToken` and `partner`: which per-token rate (`stats` unless said). */
  limit?: Exclude<Limiter, 'address'>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The path's parameters (`[id]`); none unless said. */
  params?: z.ZodType<P>;
  /** The group's reply to input that fails its schema, when not the format's own (aliases: 400 NOT_FOUND). */
  badInput?: (detail: string) => ApiError;
  /** false: the handler gets no database (health answers 503 itself when it is down). */
  db?: false;
  /** `local`: a bearer token that opens the route from anywhere when set (metrics: TRIAD_METRICS_TOKEN). */
  localToken?: () => string | undefined;
  /** `local`: the refusal (401 unless said; the demo credentials answer 404). */
  localRefusal?: (detail: string) => ApiError;
};

export type RouteContext<A extends Auth, Q, B, P> = {
  request: RequestView;
  db: Db;
  params: P;
  query: Q;
  body: B;
  /** The client's address (per-address limits, failed attempts). */
  address: string;
} & Principals[A];

export type NodeRoute = (req: IncomingMessage, res: ServerResponse, baseHeaders: [string, string][]) => Promise<void>;
/** Where a route keeps its door for Node's request and response. */
export const NODE_ROUTE = Symbol('triad.nodeRoute');
export type WebRoute<P> = ((request: Request, context?: { params: Promise<P> }) => Promise<Response>) & { [NODE_ROUTE]: NodeRoute };

const FORMATS: Record<Format, WireFormat> = { link: linkFormat, chat: chatFormat };
const RATES: Record<Limiter, () => number> = {
  link: () => config().TRIAD_LINK_RATE_PER_S,
  stats: () => config().TRIAD_STATS_RATE_PER_S,
  address: () => config().TRIAD_ADDRESS_RATE_PER_S,
};

export function route<A extends Auth, Q = undefined, B = undefined, P = Record<string, never>>(
  definition: RouteDefinition<A, Q, B, P>,
  handler: (ctx: RouteContext<A, Q, B, P>) => Promise<Reply>,
): WebRoute<P> {
  const format = FORMATS[definition.format ?? 'link'];
  const badInput = definition.badInput ?? ((detail: string, param?: string) => format.badInput(detail, param));

  async function answer(request: RequestView, rawParams: unknown): Promise<Reply> {
    const headers: Record<string, string> = {};
    try {
      // Worked out only when something needs it (not on the hot path of a cached API key).
      let known: string | undefined;
      const address = () => (known ??= clientAddress(request));
      const principal = await authenticate(definition, format, request, address, headers);
      const db = definition.db === false ? (undefined as unknown as Db) : await getDb();
      const params = definition.params ? parseWith(definition.params, rawParams) : ({} as P);
      // A console session names its organization's partner by id (`partner`) instead of by its secret.
      const byIdOf = (raw: unknown) => (definition.auth === 'partner' ? partnerNamedById(principal as Actor, raw) : null);
      const rawQuery = queryObject(request.url);
      let byId = byIdOf(rawQuery);
      const query = definition.query ? parseWith(definition.query, rawQuery) : (undefined as Q);
      const rawBody = definition.body ? await request.json() : undefined;
      byId ??= byIdOf(rawBody);
      const body = definition.body ? parseWith(definition.body, rawBody) : (undefined as B);
      const extra =
        definition.auth === 'partner'
          ? {
              partner: await requirePartner(
                db,
                format,
                principal as { org: Organization },
                byId ? undefined : query,
                byId ? undefined : body,
                byId,
              ),
            }
          : {};
      const ctx = {
        request,
        db,
        params,
        query,
        body,
        get address() {
          return address();
        },
        ...principal,
        ...extra,
      } as RouteContext<A, Q, B, P>;
      const reply = await handler(ctx);
      return { ...reply, headers: { 'Cache-Control': 'no-store', ...headers, ...reply.headers } };
    } catch (e) {
      return errorReply(format, toApiError(e, format, badInput, request), headers);
    }
  }

  const web = async (request: Request, context?: { params: Promise<P> }): Promise<Response> => {
    const view: RequestView = {
      method: request.method,
      url: request.url,
      get path() {
        return new URL(request.url).pathname;
      },
      headers: request.headers,
      json: () => readJsonBody(request),
      signal: request.signal,
    };
    const reply = await answer(view, (await context?.params) ?? {});
    try {
      return toResponse(reply);
    } catch (e) {
      return toResponse(lastResort(e, view.path, format));
    }
  };

  const node: NodeRoute = async (req, res, baseHeaders) => {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort(new DOMException('The client closed the connection', 'AbortError'));
    });
    const view: RequestView = {
      method: req.method ?? 'GET',
      get url() {
        return `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
      },
      get path() {
        return (req.url ?? '/').split('?')[0]!;
      },
      headers: {
        get: (name) => {
          const v = req.headers[name.toLowerCase()];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        },
      },
      json: () => readNodeJsonBody(req),
      signal: gone.signal,
    };
    const reply = await answer(view, {});
    try {
      await sendNodeReply(res, reply, baseHeaders, gone.signal);
    } catch (e) {
      if (res.headersSent) res.destroy();
      else await sendNodeReply(res, lastResort(e, view.path, format), baseHeaders, gone.signal);
    }
  };

  return Object.assign(web, { [NODE_ROUTE]: node });
}

/** Checks the caller against the route's auth scheme and counts the call; fills `headers` with X-RateLimit-*. */
async function authenticate(
  definition: RouteDefinition<Auth, unknown, unknown, unknown>,
  format: WireFormat,
  request: RequestView,
  address: () => string,
  headers: Record<string, string>,
): Promise<object> {
  const count = async (name: string, key: string, points: number, durationS: number, why?: string) => {
    const decision = await consume(name, key, points, durationS);
    Object.assign(headers, rateLimitHeaders(decision));
    if (!decision.allowed) throw format.tooManyRequests(decision.retryAfterS, rateLimitHeaders(decision), why);
  };
  const bearer = bearerToken(request.headers.get('authorization'));
  const ttl = config().TRIAD_AUTH_CACHE_TTL_MS;
  // A console session, when the call has no bearer token but the cookie (checked for CSRF here).
  const session = async (role: Session['role'] | 'any'): Promise<Session | null> => {
    const secret = bearer ? null : sessionSecret(request.headers.get('cookie'));
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
    requireSameOrigin(request, format);
    if (!SAFE_METHODS.has(request.method) && !csrfMatches(secret, request.headers.get('x-csrf-token'))) {
      throw format.forbidden("a console call that changes something needs the session's CSRF token in X-CSRF-Token");
    }
    return found;
  };
  switch (definition.auth) {
    case 'none':
      await count('address', address(), RATES.address(), 1);
      return {};
    case 'apiKey': {
      const console = await session('org');
      if (console) {
        const db = await getDb();
        const apiKey = await playgroundKey(db, console.org!.id);
        await count('chat', `playground:${apiKey.id}`, apiKey.rpm ?? config().TRIAD_DEFAULT_RPM, 60);
        return { apiKey, session: console };
      }
      if (!bearer) throw format.unauthorized('Missing API key. Send it as `Authorization: Bearer <API_KEY>`.');
      const db = await getDb();
      const hash = hashToken(bearer);
      const apiKey = await cachedPrincipal(`key:${hash}`, ttl, () =>
        lookUpCredential(
          address(),
          (s, h) => format.tooManyRequests(s, h, 'unknown API keys from this address'),
          () => findApiKey(db, bearer),
        ),
      );
      if (!apiKey) throw format.unauthorized('Invalid API key. Send it as `Authorization: Bearer <API_KEY>`.');
      if (apiKey.suspended) throw format.forbidden(SUSPENDED);
      await count('chat', hash, apiKey.rpm ?? config().TRIAD_DEFAULT_RPM, 60);
      return { apiKey, session: null };
    }
    case 'orgToken':
    case 'partner': {
      const limiter = definition.limit ?? 'stats';
      const console = await session('org');
      if (console) {
        await count(limiter, `session:${console.id}`, RATES[limiter](), 1);
        return { org: console.org!, actor: `session:${console.id}`, session: console };
      }
      if (!bearer) throw format.unauthorized('missing Authorization header with an organization token');
      const hash = hashToken(bearer);
      await count(limiter, hash, RATES[limiter](), 1);
      const db = await getDb();
      const org = await cachedPrincipal(`org:${hash}`, ttl, () =>
        lookUpCredential(
          address(),
          (s, h) => format.tooManyRequests(s, h, 'unknown tokens from this address'),
          () => findOrgByToken(db, bearer),
        ),
      );
      if (!org) throw format.unauthorized('the organization token is invalid or revoked');
      if (org.suspended) throw format.forbidden(SUSPENDED);
      return { org: { id: org.id, name: org.name }, actor: `org_token:${org.tokenId}`, session: null };
    }
    case 'session': {
      const console = await session('any');
      if (!console) throw format.unauthorized('not signed in: no console session cookie');
      await count('address', address(), RATES.address(), 1);
      return { actor: `session:${console.id}`, session: console };
    }
    case 'instance': {
      const console = await session('admin');
      if (console) {
        await count('link', `session:${console.id}`, RATES.link(), 1);
        return { actor: `session:${console.id}`, session: console };
      }
      if (!bearer)
        throw format.unauthorized("an admin token (`npm run admin -- admin-token create`) or an administrator's console session is needed");
      // The admin CLI's way in (the data directory's admin secret, from this machine only), as `admin_cli`.
      if (!bearer.startsWith(TOKEN_PREFIX.adminToken)) {
        requireLocalHost(request);
        const expected = readAdminSecret(config().dataDir);
        if (!isLoopbackPeer(request) || !expected || !safeEqual(bearer, expected))
          throw format.unauthorized('the admin token is invalid or revoked (or, from this machine, the local admin secret is wrong)');
        return { actor: 'admin_cli', session: null };
      }
      const db = await getDb();
      const found = await lookUpCredential(
        address(),
        (s, h) => format.tooManyRequests(s, h, 'unknown tokens from this address'),
        () => findAdminToken(db, bearer),
      );
      if (!found) throw format.unauthorized('the admin token is invalid or revoked');
      await count('link', hashToken(bearer), RATES.link(), 1);
      return { actor: `admin_token:${found.id}`, session: null };
    }
    case 'aliasAccess': {
      // An org token is counted on its alias rate wherever it comes from; a JWT, a passcode or nothing per address.
      if (bearer && !looksLikeJwt(bearer)) await count('link', hashToken(bearer), RATES.link(), 1);
      else await count('address', address(), RATES.address(), 1);
      return { bearer, address: address() };
    }
    case 'local': {
      const token = definition.localToken?.();
      if (token && bearer && safeEqual(bearer, token)) return {};
      const refuse = definition.localRefusal ?? format.unauthorized;
      requireLocalHost(request);
      if (!localRoutesEnabled() || !isLoopbackPeer(request))
        throw refuse('served to this machine only, while the server listens on loopback (TRIAD_LOCAL_ROUTES)');
      await count('address', address(), RATES.address(), 1);
      return {};
    }
    case 'admin': {
      requireLocalHost(request);
      const expected = readAdminSecret(config().dataDir);
      if (!isLoopbackPeer(request) || !expected || !bearer || !safeEqual(bearer, expected))
        throw format.unauthorized('admin commands are accepted from this machine only, with the local admin secret');
      return {};
    }
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The origin this server is reached at (the Host header, https when the request came over HTTPS).
 * A cookie call whose `Origin` is another site's is refused; a browser sends `Origin` with every
 * request that can change state, so one without it is refused too unless it only reads.
 */
export function requireSameOrigin(request: RequestView, format: WireFormat): void {
  const origin = request.headers.get('origin');
  if (!origin && SAFE_METHODS.has(request.method)) return;
  const own = `${viaHttps(request) ? 'https' : 'http'}://${request.headers.get('host') ?? ''}`.toLowerCase();
  if (origin?.toLowerCase() !== own) throw format.forbidden(`the request's Origin (${origin ?? 'none'}) is not this server's (${own})`);
}

/**
 * With a console session and no `secret`, the partner's id in `partner` (query or body): the id is
 * then put in place of the secret for the schema, which only checks that one is there.
 */
function partnerNamedById({ session }: Actor, raw: unknown): string | null {
  if (!session || !raw || typeof raw !== 'object' || Array.isArray(raw) || 'secret' in raw || !('partner' in raw)) return null;
  const where = raw as Record<string, unknown>;
  if (typeof where.partner !== 'string') return null;
  where.secret = `partner:${where.partner}`;
  return where.partner;
}

/** `secret` of the query or the body (or, for a session, the partner's id) names a partner of the caller's organization, else 401. */
async function requirePartner(
  db: Db,
  format: WireFormat,
  { org }: { org: Organization },
  query: unknown,
  body: unknown,
  partnerId: string | null,
): Promise<Partner> {
  if (partnerId) {
    const partner = await findPartnerOfOrg(db, { orgId: org.id, partnerId });
    if (!partner) throw format.unauthorized('no partner of this organization has that id');
    return partner;
  }
  const secret = (query as { secret?: string } | undefined)?.secret ?? (body as { secret?: string } | undefined)?.secret;
  const partner = secret ? await findPartnerBySecret(db, { orgId: org.id, secret }) : null;
  if (!partner) throw format.unauthorized('the partner secret names no partner of this organization');
  return partner;
}

function toApiError(
  e: unknown,
  format: WireFormat,
  badInput: (detail: string, param?: string) => ApiError,
  request: RequestView,
): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof BadInputError) return badInput(e.detail, e.param);
  if (e instanceof MalformedJsonError) return badInput(e.message);
  if (e instanceof BodyTooLargeError) return format.bodyTooLarge(e.limit);
  if (isDatabaseDown(e)) {
    log.warn('database unreachable', { method: request.method, path: request.path, error: (e as Error)?.message });
    return format.unavailable();
  }
  // A client that hung up (say, half-way through its body) reads no reply: nothing went wrong here.
  if (request.signal.aborted) {
    log.debug('client went away', { method: request.method, path: request.path });
    return badInput('the client went away');
  }
  log.error('unhandled error', { method: request.method, path: request.path, error: (e as Error)?.message });
  return format.internal();
}

/** A reply that could not be written (say, a body JSON cannot hold) becomes the format's 500, through either door. */
function lastResort(e: unknown, path: string, format: WireFormat): Reply {
  log.error('reply failed', { path, error: (e as Error)?.message });
  return errorReply(format, format.internal());
}

/** An error as its format writes it; never stored by a cache. */
function errorReply(format: WireFormat, error: ApiError, headers: Record<string, string> = {}): Reply {
  return { status: error.status, headers: { 'Cache-Control': 'no-store', ...headers, ...error.headers }, json: format.body(error) };
}

/** A JSON reply (200 unless said). */
export const json = (data: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({ status, headers, json: data });
