import { randomUUID } from 'node:crypto';
import type { Preferences } from '@/lib/chat/schema';
import type { Budget } from '@/lib/budgets/budgets';
import type { Period } from '@/lib/budgets/periods';
import { type AnyColumn, and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { adminTokens, apiKeys, organizations, orgTokens, partners } from '@/lib/db/schema';
import { forgetPrincipals } from './principal-cache';
import { displayPrefix, generateToken, hashToken, tokenMatches } from './tokens';

/*
 * Organizations and their credentials. Every credential is returned in plaintext exactly
 * once, by the function that creates it; only its SHA-256 is stored.
 */

export type Organization = { id: string; name: string };
/** The organization of a credential, and whether an instance administrator suspended it (its credentials then get 403). */
export type CredentialOrg = Organization & { tokenId: string; suspended: boolean };
export const SUSPENDED = 'the organization is suspended by the instance administrator';

export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

export async function createOrganization(db: Db, { name }: { name: string }): Promise<Organization> {
  const [org] = await db.insert(organizations).values({ id: randomUUID(), name }).returning();
  return { id: org!.id, name: org!.name };
}

export async function getOrganization(db: Db, { orgId }: { orgId: string }): Promise<Organization> {
  const org = await db.query.organizations.findFirst({ where: eq(organizations.id, orgId) });
  if (!org) throw new NotFoundError(`no organization with id ${orgId}`);
  return { id: org.id, name: org.name };
}

export async function createOrgToken(db: Db, { orgId, label }: { orgId: string; label?: string }) {
  await getOrganization(db, { orgId });
  const token = generateToken('orgToken');
  const id = randomUUID();
  await db.insert(orgTokens).values({ id, orgId, tokenHash: hashToken(token), prefix: displayPrefix(token), label });
  return { id, token };
}

/**
 * What an API key may do beyond its rate (design §17): the models it may use, when it expires (Unix
 * seconds, as the console API and the CLI take it). Absent: unchanged; null: none.
 */
export type KeyControls = {
  models?: string[] | null;
  expires_at?: number | null;
  budget_usd?: string | null;
  budget_period?: Period;
  preferences?: Preferences | null;
};

/** The budget columns a change sets: none removes both; an amount without a period keeps the key's period (a month when it had none). */
export const budgetColumns = (c: Pick<KeyControls, 'budget_usd' | 'budget_period'>, current: AnyColumn) =>
  c.budget_usd === null
    ? { budgetUsd: null, budgetPeriod: null }
    : {
        ...(c.budget_usd !== undefined ? { budgetUsd: c.budget_usd } : {}),
        ...(c.budget_period !== undefined
          ? { budgetPeriod: c.budget_period }
          : c.budget_usd !== undefined
            ? { budgetPeriod: sql<Period>`coalesce(${current}, 'month')` }
            : {}),
      };
const toDate = (s: number | null | undefined) => (s === undefined ? undefined : s === null ? null : new Date(s * 1000));
export const toSeconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

export async function createApiKey(
  db: Db,
  {
    orgId,
    rpm,
    label,
    models,
    expires_at,
    budget_usd,
    budget_period,
    preferences,
  }: { orgId: string; rpm?: number; label?: string } & KeyControls,
) {
  await getOrganization(db, { orgId });
  const key = generateToken('apiKey');
  const id = randomUUID();
  await db.insert(apiKeys).values({
    id,
    orgId,
    keyHash: hashToken(key),
    prefix: displayPrefix(key),
    rpm,
    label,
    models: models ?? null,
    expiresAt: toDate(expires_at) ?? null,
    budgetUsd: budget_usd ?? null,
    budgetPeriod: budget_usd != null ? (budget_period ?? 'month') : null,
    preferences: preferences ?? null,
  });
  return { id, key };
}

export async function createPartner(db: Db, { orgId, name }: { orgId: string; name: string }) {
  await getOrganization(db, { orgId });
  const secret = generateToken('partnerSecret');
  const id = randomUUID();
  await db.insert(partners).values({ id, orgId, name, secretHash: hashToken(secret), secretPrefix: displayPrefix(secret) });
  return { id, secret };
}

/** Revokes an org token given either the token itself or its id. True when something was revoked. */
export async function revokeOrgToken(db: Db, ref: { token?: string; id?: string }): Promise<boolean> {
  const where = ref.token ? eq(orgTokens.tokenHash, hashToken(ref.token)) : eq(orgTokens.id, ref.id ?? '');
  const rows = await db
    .update(orgTokens)
    .set({ revokedAt: new Date() })
    .where(and(where, isNull(orgTokens.revokedAt)))
    .returning({ id: orgTokens.id });
  forgetPrincipals();
  return rows.length > 0;
}

/**
 * Changes an active key's controls given the key or its id (and, from the console, its organization:
 * another's is not found). This process's cache forgets the key at once, others within the credential
 * cache's time (TRIAD_AUTH_CACHE_TTL_MS). The key's id and controls, or null.
 */
export async function updateApiKey(db: Db, ref: { key?: string; id?: string; orgId?: string }, controls: KeyControls) {
  const where = ref.key ? eq(apiKeys.keyHash, hashToken(ref.key)) : eq(apiKeys.id, ref.id ?? '');
  const [row] = await db
    .update(apiKeys)
    .set({
      ...(controls.models !== undefined ? { models: controls.models } : {}),
      ...(controls.expires_at !== undefined ? { expiresAt: toDate(controls.expires_at) } : {}),
      ...budgetColumns(controls, apiKeys.budgetPeriod),
      ...(controls.preferences !== undefined ? { preferences: controls.preferences } : {}),
    })
    .where(and(where, isNull(apiKeys.revokedAt), ...(ref.orgId ? [eq(apiKeys.orgId, ref.orgId)] : [])))
    .returning({
      id: apiKeys.id,
      models: apiKeys.models,
      expiresAt: apiKeys.expiresAt,
      budgetUsd: apiKeys.budgetUsd,
      budgetPeriod: apiKeys.budgetPeriod,
      preferences: apiKeys.preferences,
    });
  forgetPrincipals();
  return row
    ? {
        id: row.id,
        models: row.models ?? null,
        expires_at: toSeconds(row.expiresAt),
        budget_usd: row.budgetUsd,
        budget_period: row.budgetPeriod,
        preferences: row.preferences,
      }
    : null;
}

/** Revokes an active key, named by itself or its id (and, for an organization's console, its organization); true when one was. */
export async function revokeApiKey(db: Db, ref: { key?: string; id?: string; orgId?: string }): Promise<boolean> {
  const where = ref.key ? eq(apiKeys.keyHash, hashToken(ref.key)) : eq(apiKeys.id, ref.id ?? '');
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(where, isNull(apiKeys.revokedAt), ...(ref.orgId ? [eq(apiKeys.orgId, ref.orgId)] : [])))
    .returning({ id: apiKeys.id });
  forgetPrincipals();
  return rows.length > 0;
}

/** The organization an unrevoked org token belongs to (and the token's id), or null. */
export async function findOrgByToken(db: Db, token: string): Promise<CredentialOrg | null> {
  const [row] = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      hash: orgTokens.tokenHash,
      tokenId: orgTokens.id,
      suspendedAt: organizations.suspendedAt,
    })
    .from(orgTokens)
    .innerJoin(organizations, eq(organizations.id, orgTokens.orgId))
    .where(and(eq(orgTokens.tokenHash, hashToken(token)), isNull(orgTokens.revokedAt)))
    .limit(1);
  return row && tokenMatches(token, row.hash)
    ? { id: row.id, name: row.name, tokenId: row.tokenId, suspended: row.suspendedAt !== null }
    : null;
}

/**
 * An API key; `networkNodes`: whether its organization's completions may go to nodes admitted to the
 * network (design §20); `models`: the models it may use, null for all; `expiresAt`: ms, or null.
 */
export type ApiKeyPrincipal = {
  id: string;
  orgId: string;
  rpm: number | null;
  prefix: string;
  label: string | null;
  networkNodes: boolean;
  models: string[] | null;
  expiresAt: number | null;
  /** The key's budget and its organization's, where set (design §17). */
  budgets: Budget[];
  /** Routing preferences its requests get when they give none. */
  preferences: Preferences | null;
  suspended?: boolean;
};

/** A budget as stored (USD text and period), as the key's or the organization's. */
const budgetOf = (scope: Budget['scope'], usd: string | null, period: Period | null): Budget[] =>
  usd !== null && period !== null ? [{ scope, usd, period }] : [];

/** The budgets a key's requests reserve on: its own, and its organization's over all its keys. */
export const budgetsOf = (
  key: { id: string; orgId: string; budgetUsd: string | null; budgetPeriod: Period | null },
  org: { budgetUsd: string | null; budgetPeriod: Period | null } | undefined,
): Budget[] => [
  ...budgetOf(`key:${key.id}`, key.budgetUsd, key.budgetPeriod),
  ...budgetOf(`org:${key.orgId}`, org?.budgetUsd ?? null, org?.budgetPeriod ?? null),
];

/** An unrevoked API key, or null. */
export async function findApiKey(db: Db, key: string): Promise<ApiKeyPrincipal | null> {
  const [row] = await db
    .select({
      id: apiKeys.id,
      orgId: apiKeys.orgId,
      rpm: apiKeys.rpm,
      prefix: apiKeys.prefix,
      label: apiKeys.label,
      keyHash: apiKeys.keyHash,
      models: apiKeys.models,
      expiresAt: apiKeys.expiresAt,
      budgetUsd: apiKeys.budgetUsd,
      budgetPeriod: apiKeys.budgetPeriod,
      preferences: apiKeys.preferences,
      orgBudgetUsd: organizations.budgetUsd,
      orgBudgetPeriod: organizations.budgetPeriod,
      suspendedAt: organizations.suspendedAt,
      networkNodes: organizations.networkNodes,
    })
    .from(apiKeys)
    .innerJoin(organizations, eq(organizations.id, apiKeys.orgId))
    .where(and(eq(apiKeys.keyHash, hashToken(key)), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row && tokenMatches(key, row.keyHash)
    ? {
        id: row.id,
        orgId: row.orgId,
        rpm: row.rpm,
        prefix: row.prefix,
        label: row.label,
        networkNodes: row.networkNodes,
        models: row.models ?? null,
        expiresAt: row.expiresAt?.getTime() ?? null,
        budgets: budgetsOf(row, { budgetUsd: row.orgBudgetUsd, budgetPeriod: row.orgBudgetPeriod }),
        preferences: row.preferences ?? null,
        suspended: row.suspendedAt !== null,
      }
    : null;
}

export type Partner = { id: string; orgId: string; name: string };

/** The partner that `secret` names within organization `orgId`, or null (another organization's partner is never found). */
export async function findPartnerBySecret(db: Db, { orgId, secret }: { orgId: string; secret: string }) {
  const row = await db.query.partners.findFirst({
    where: and(eq(partners.secretHash, hashToken(secret)), eq(partners.orgId, orgId), isNull(partners.revokedAt)),
  });
  return row && tokenMatches(secret, row.secretHash) ? ({ id: row.id, orgId: row.orgId, name: row.name } satisfies Partner) : null;
}

/** The partner a secret names, in any organization (a node agent holds only the secret), and whether its organization is suspended; or null. */
export async function findPartnerBySecretAlone(db: Db, secret: string): Promise<(Partner & { suspended: boolean }) | null> {
  const [row] = await db
    .select({
      id: partners.id,
      orgId: partners.orgId,
      name: partners.name,
      secretHash: partners.secretHash,
      suspendedAt: organizations.suspendedAt,
    })
    .from(partners)
    .innerJoin(organizations, eq(organizations.id, partners.orgId))
    .where(and(eq(partners.secretHash, hashToken(secret)), isNull(partners.revokedAt)))
    .limit(1);
  return row && tokenMatches(secret, row.secretHash)
    ? { id: row.id, orgId: row.orgId, name: row.name, suspended: row.suspendedAt !== null }
    : null;
}

export async function getPartner(db: Db, { partnerId }: { partnerId: string }): Promise<Partner> {
  const row = await db.query.partners.findFirst({ where: eq(partners.id, partnerId) });
  if (!row) throw new NotFoundError(`no partner with id ${partnerId}`);
  return { id: row.id, orgId: row.orgId, name: row.name };
}

/** A partner of organization `orgId` by its id, or null (another organization's partner is never found). */
export async function findPartnerOfOrg(db: Db, { orgId, partnerId }: { orgId: string; partnerId: string }): Promise<Partner | null> {
  const row = await db.query.partners.findFirst({
    where: and(eq(partners.id, partnerId), eq(partners.orgId, orgId), isNull(partners.revokedAt)),
  });
  return row ? { id: row.id, orgId: row.orgId, name: row.name } : null;
}

/** An active admin token (its id), or null. */
export async function findAdminToken(db: Db, token: string): Promise<{ id: string } | null> {
  const row = await db.query.adminTokens.findFirst({
    where: and(eq(adminTokens.tokenHash, hashToken(token)), isNull(adminTokens.revokedAt)),
  });
  return row && tokenMatches(token, row.tokenHash) ? { id: row.id } : null;
}

export async function createAdminToken(db: Db, { label }: { label?: string } = {}) {
  const token = generateToken('adminToken');
  const id = randomUUID();
  await db.insert(adminTokens).values({ id, tokenHash: hashToken(token), prefix: displayPrefix(token), label });
  return { id, token };
}

/** Revokes an admin token given the token or its id; its console sessions end with it. */
export async function revokeAdminToken(db: Db, ref: { token?: string; id?: string }): Promise<boolean> {
  const where = ref.token ? eq(adminTokens.tokenHash, hashToken(ref.token)) : eq(adminTokens.id, ref.id ?? '');
  const rows = await db
    .update(adminTokens)
    .set({ revokedAt: new Date() })
    .where(and(where, isNull(adminTokens.revokedAt)))
    .returning({ id: adminTokens.id });
  return rows.length > 0;
}
