import { config } from '@/lib/config';
import type { Caller, Limiter } from '@/lib/core/caller';
import { type Db, getDb } from '@/lib/db/client';
import { readAdminSecret } from './admin-secret';
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
} from './credentials';
import { cachedPrincipal } from './principal-cache';
import { hashToken, safeEqual, TOKEN_PREFIX } from './tokens';
import { lookUpCredential } from './unknown-credentials';

/*
 * Who holds a bearer credential, one function per auth scheme (lib/http/auth.ts puts them together,
 * with the console's sessions before them). A known credential is looked up in the principal cache; an
 * unknown one is counted per client address (./unknown-credentials.ts).
 */

const unknownFrom = (caller: Caller, what: string) => (s: number, h: Record<string, string>) =>
  caller.format.tooManyRequests(s, h, `unknown ${what} from this address`);

/** `apiKey`: `Authorization: Bearer <API_KEY>`, counted on the key's own rate a minute. */
export async function apiKeyHolder(caller: Caller): Promise<ApiKeyPrincipal> {
  const { bearer, format } = caller;
  if (!bearer) throw format.unauthorized('Missing API key. Send it as `Authorization: Bearer <API_KEY>`.');
  const db = await getDb();
  const hash = hashToken(bearer);
  const apiKey = await cachedPrincipal(`key:${hash}`, config().TRIAD_AUTH_CACHE_TTL_MS, () =>
    lookUpCredential(caller.address(), unknownFrom(caller, 'API keys'), () => findApiKey(db, bearer)),
  );
  if (!apiKey) throw format.unauthorized('Invalid API key. Send it as `Authorization: Bearer <API_KEY>`.');
  if (apiKey.expiresAt !== null && Date.now() >= apiKey.expiresAt)
    throw format.unauthorized(`This API key expired at ${new Date(apiKey.expiresAt).toISOString()}.`);
  if (apiKey.suspended) throw format.forbidden(SUSPENDED);
  await caller.count('chat', hash, apiKey.rpm ?? config().TRIAD_DEFAULT_RPM, 60);
  return apiKey;
}

/** `orgToken` and `partner`: an organization token (`Bearer` or bare), counted per token on `limiter`. */
export async function orgTokenHolder(caller: Caller, limiter: Exclude<Limiter, 'address'>): Promise<{ org: Organization; actor: string }> {
  const { bearer, format } = caller;
  if (!bearer) throw format.unauthorized('missing Authorization header with an organization token');
  const hash = hashToken(bearer);
  await caller.perSecond(limiter, hash);
  const db = await getDb();
  const org = await cachedPrincipal(`org:${hash}`, config().TRIAD_AUTH_CACHE_TTL_MS, () =>
    lookUpCredential(caller.address(), unknownFrom(caller, 'tokens'), () => findOrgByToken(db, bearer)),
  );
  if (!org) throw format.unauthorized('the organization token is invalid or revoked');
  if (org.suspended) throw format.forbidden(SUSPENDED);
  return { org: { id: org.id, name: org.name }, actor: `org_token:${org.tokenId}` };
}

/**
 * `instance` with a bearer: an admin token (`adm_…`), or from this machine the data directory's admin
 * secret (the admin CLI's way in, as `admin_cli`).
 */
export async function adminTokenHolder(caller: Caller): Promise<{ actor: string }> {
  const { bearer, format } = caller;
  if (!bearer)
    throw format.unauthorized("an admin token (`npm run admin -- admin-token create`) or an administrator's console session is needed");
  if (!bearer.startsWith(TOKEN_PREFIX.adminToken)) {
    if (!holdsLocalAdminSecret(caller))
      throw format.unauthorized('the admin token is invalid or revoked (or, from this machine, the local admin secret is wrong)');
    return { actor: 'admin_cli' };
  }
  const db = await getDb();
  const found = await lookUpCredential(caller.address(), unknownFrom(caller, 'tokens'), () => findAdminToken(db, bearer));
  if (!found) throw format.unauthorized('the admin token is invalid or revoked');
  await caller.perSecond('link', hashToken(bearer));
  return { actor: `admin_token:${found.id}` };
}

/** `admin`: the admin CLI's commands, from this machine only, with the local admin secret. */
export function localAdmin(caller: Caller): void {
  if (!holdsLocalAdminSecret(caller))
    throw caller.format.unauthorized('admin commands are accepted from this machine only, with the local admin secret');
}

function holdsLocalAdminSecret(caller: Caller): boolean {
  const here = caller.fromThisMachine();
  const expected = readAdminSecret(config().dataDir);
  return here && !!expected && !!caller.bearer && safeEqual(caller.bearer, expected);
}

/**
 * The partner a `partner` call names: by its `secret` (of the query or the body), or, for a console
 * session, by its id. One of the caller's organization, else 401.
 */
export async function partnerOfCall(
  db: Db,
  caller: Pick<Caller, 'format'>,
  org: Organization,
  named: { secret?: string } | { partnerId: string },
): Promise<Partner> {
  if ('partnerId' in named) {
    const partner = await findPartnerOfOrg(db, { orgId: org.id, partnerId: named.partnerId });
    if (!partner) throw caller.format.unauthorized('no partner of this organization has that id');
    return partner;
  }
  const partner = named.secret ? await findPartnerBySecret(db, { orgId: org.id, secret: named.secret }) : null;
  if (!partner) throw caller.format.unauthorized('the partner secret names no partner of this organization');
  return partner;
}
