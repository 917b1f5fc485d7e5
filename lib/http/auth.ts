import { aliasCaller } from '@/lib/aliases/callers';
import { adminTokenHolder, apiKeyHolder, localAdmin, orgTokenHolder, partnerOfCall } from '@/lib/auth/callers';
import type { ApiKeyPrincipal, Organization, Partner } from '@/lib/auth/credentials';
import { bearerToken, safeEqual } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import type { Caller, Limiter } from '@/lib/core/caller';
import { ApiError, type WireFormat } from '@/lib/core/errors';
import { consoleSession, playgroundHolder } from '@/lib/console/callers';
import type { Session } from '@/lib/console/sessions';
import type { Db } from '@/lib/db/client';
import { consume, rateLimitHeaders } from '@/lib/rate-limit';
import { isLoopbackPeer, localRoutesEnabled, ownOrigin, requireLocalHost } from './peer';
import type { RequestView } from './request-view';

/*
 * The auth schemes of the route definition (./route.ts): who may call a route, and how its calls are
 * counted. Each scheme finds its principal with the small functions beside the credentials they read;
 * this file only puts them in order.
 *
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
 *  - `sessionIfAny`: the same, or nobody (no cookie, or one whose session has ended): "who am I" asked
 *    by a page that does not know yet whether anyone is signed in.
 * Unknown credentials are counted per client address as well (lib/auth/unknown-credentials.ts).
 *
 * Console sessions (design §11, lib/console/callers.ts): with no bearer token, `orgToken`, `partner`
 * and `apiKey` accept an organization's session cookie (`apiKey` then serves on the organization's
 * playground key) and `instance` an administrator's. Bearer calls are unaffected.
 */
export type Auth = 'none' | 'apiKey' | 'orgToken' | 'partner' | 'aliasAccess' | 'local' | 'admin' | 'instance' | 'session' | 'sessionIfAny';

/** Who made a call, as the audit log names them: `session:<id>`, `org_token:<id>` or `admin_token:<id>` (never a secret). */
export type Actor = { actor: string; session: Session | null };
export type Principals = {
  none: object;
  apiKey: { apiKey: ApiKeyPrincipal; session: Session | null };
  orgToken: { org: Organization } & Actor;
  partner: { org: Organization; partner: Partner } & Actor;
  aliasAccess: { bearer: string | null; address: string };
  local: object;
  admin: object;
  instance: Actor;
  session: { actor: string; session: Session };
  sessionIfAny: { session: Session | null };
};

/** What of a route's definition its auth scheme reads. */
export type AuthSettings = {
  auth: Auth;
  /** For `orgToken` and `partner`: which per-token rate (`stats` unless said). */
  limit?: Exclude<Limiter, 'address'>;
  /** `local`: a bearer token that opens the route from anywhere when set (metrics: TRIAD_METRICS_TOKEN). */
  localToken?: () => string | undefined;
  /** `local`: the refusal (401 unless said; the demo credentials answer 404). */
  localRefusal?: (detail: string) => ApiError;
};

const RATES: Record<Limiter, () => number> = {
  link: () => config().TRIAD_LINK_RATE_PER_S,
  stats: () => config().TRIAD_STATS_RATE_PER_S,
  address: () => config().TRIAD_ADDRESS_RATE_PER_S,
};

/** A request as the schemes see it; what it is counted against goes into `headers` (X-RateLimit-*). */
export function callerOf(request: RequestView, format: WireFormat, address: () => string, headers: Record<string, string>): Caller {
  const count = async (name: string, key: string, points: number, durationS: number, why?: string) => {
    const decision = await consume(name, key, points, durationS);
    Object.assign(headers, rateLimitHeaders(decision));
    if (!decision.allowed) throw format.tooManyRequests(decision.retryAfterS, rateLimitHeaders(decision), why);
  };
  return {
    method: request.method,
    header: (name) => request.headers.get(name),
    bearer:
      bearerToken(request.headers.get('authorization')) ?? (format.apiKeyHeader ? request.headers.get(format.apiKeyHeader) || null : null),
    address,
    format,
    count,
    perSecond: (limiter, key) => count(limiter, key, RATES[limiter](), 1),
    fromThisMachine() {
      requireLocalHost(request);
      return isLoopbackPeer(request);
    },
    ownOrigin: () => ownOrigin(request),
  };
}

const actorOf = (session: Session) => ({ actor: `session:${session.id}`, session });

/** The caller's principal under the route's scheme, the call counted (the partner of `partner` comes later: see partnerOf). */
export async function authenticate(settings: AuthSettings, caller: Caller): Promise<object> {
  switch (settings.auth) {
    case 'none':
      await caller.perSecond('address', caller.address());
      return {};
    case 'apiKey': {
      const session = await consoleSession(caller, 'org');
      if (session) return { apiKey: await playgroundHolder(caller, session), session };
      return { apiKey: await apiKeyHolder(caller), session: null };
    }
    case 'orgToken':
    case 'partner': {
      const limiter = settings.limit ?? 'stats';
      const session = await consoleSession(caller, 'org');
      if (!session) return { ...(await orgTokenHolder(caller, limiter)), session: null };
      await caller.perSecond(limiter, `session:${session.id}`);
      return { org: session.org!, ...actorOf(session) };
    }
    case 'session': {
      const session = await consoleSession(caller, 'any');
      if (!session) throw caller.format.unauthorized('not signed in: no console session cookie');
      await caller.perSecond('address', caller.address());
      return actorOf(session);
    }
    case 'sessionIfAny': {
      await caller.perSecond('address', caller.address());
      // An ended session (401) is nobody; a suspended organization's (403) is still refused.
      const session = await consoleSession(caller, 'any').catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) return null;
        throw e;
      });
      return { session };
    }
    case 'instance': {
      const session = await consoleSession(caller, 'admin');
      if (!session) return { ...(await adminTokenHolder(caller)), session: null };
      await caller.perSecond('link', `session:${session.id}`);
      return actorOf(session);
    }
    case 'aliasAccess':
      return aliasCaller(caller);
    case 'local': {
      const token = settings.localToken?.();
      if (token && caller.bearer && safeEqual(caller.bearer, token)) return {};
      const refuse = settings.localRefusal ?? caller.format.unauthorized;
      const here = caller.fromThisMachine();
      if (!localRoutesEnabled() || !here)
        throw refuse('served to this machine only, while the server listens on loopback (TRIAD_LOCAL_ROUTES)');
      await caller.perSecond('address', caller.address());
      return {};
    }
    case 'admin':
      localAdmin(caller);
      return {};
  }
}

/**
 * With a console session and no `secret`, the partner's id in `partner` (query or body): the id is
 * then put in place of the secret for the schema, which only checks that one is there. Call on the raw
 * query and body before they are parsed.
 */
export function partnerNamedById({ session }: Actor, raw: unknown): string | null {
  if (!session || !raw || typeof raw !== 'object' || Array.isArray(raw) || 'secret' in raw || !('partner' in raw)) return null;
  const where = raw as Record<string, unknown>;
  if (typeof where.partner !== 'string') return null;
  where.secret = `partner:${where.partner}`;
  return where.partner;
}

/** The partner of a `partner` call: named by id (a session's, see partnerNamedById) or by the `secret` of the query or the body. */
export function partnerOf(db: Db, caller: Caller, { org }: { org: Organization }, byId: string | null, query: unknown, body: unknown) {
  if (byId) return partnerOfCall(db, caller, org, { partnerId: byId });
  const secret = (query as { secret?: string } | undefined)?.secret ?? (body as { secret?: string } | undefined)?.secret;
  return partnerOfCall(db, caller, org, { secret });
}
