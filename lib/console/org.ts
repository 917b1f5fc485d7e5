import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import {
  budgetColumns,
  budgetsOf,
  createApiKey,
  createOrgToken,
  createPartner,
  type KeyControls,
  revokeApiKey,
  toSeconds,
  updateApiKey,
} from '@/lib/auth/credentials';
import { budgetView } from '@/lib/budgets/budgets';
import { forgetPrincipals } from '@/lib/auth/principal-cache';
import { displayPrefix, generateToken, hashToken } from '@/lib/auth/tokens';
import { flushUsage } from '@/lib/chat/usage';
import type { Db } from '@/lib/db/client';
import { closePartnerTunnels } from '@/lib/tunnel/registry';
import { CLOSE } from '@/lib/tunnel/protocol';
import { apiKeys, chatUsage, nodes, organizations, orgTokens, partners } from '@/lib/db/schema';

/*
 * What an organization manages from the console (design §11): its API keys, org tokens, partners and
 * their nodes. Every function is scoped to the organization: another organization's object is "not
 * found", never touched. A new credential is returned in plaintext once; only its SHA-256 is stored.
 */

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** API keys with what they served: the last use and the completions of the last 24 hours. */
export async function listApiKeys(db: Db, orgId: string, now = Date.now()) {
  await flushUsage();
  const since = new Date(now - 86_400_000);
  const rows = await db
    .select({
      id: apiKeys.id,
      label: apiKeys.label,
      prefix: apiKeys.prefix,
      rpm: apiKeys.rpm,
      models: apiKeys.models,
      expiresAt: apiKeys.expiresAt,
      budgetUsd: apiKeys.budgetUsd,
      budgetPeriod: apiKeys.budgetPeriod,
      preferences: apiKeys.preferences,
      createdAt: apiKeys.createdAt,
      revokedAt: apiKeys.revokedAt,
      // Qualified by hand: inside a sub-select Drizzle writes bare column names, which both tables have.
      lastUsedAt: sql<Date | string | null>`(select max(u.created_at) from ${chatUsage} u where u.api_key_id = ${apiKeys}.id)`,
      requests24h: sql<number>`(select coalesce(sum(u.requests), 0)::float8 from ${chatUsage} u
        where u.api_key_id = ${apiKeys}.id and u.created_at >= ${since.toISOString()}::timestamptz)`,
    })
    .from(apiKeys)
    .where(eq(apiKeys.orgId, orgId))
    .orderBy(desc(apiKeys.createdAt));
  const budgets = await Promise.all(
    rows.map(async (r) => {
      const [budget] = budgetsOf({ ...r, orgId }, undefined);
      return budget && !r.revokedAt ? budgetView(db, budget, now) : null;
    }),
  );
  return rows.map((r, i) => ({
    id: r.id,
    name: r.label,
    prefix: r.prefix,
    rpm: r.rpm,
    models: r.models ?? null,
    expires_at: toSeconds(r.expiresAt),
    budget: budgets[i]!,
    preferences: r.preferences ?? null,
    created_at: iso(r.createdAt),
    last_used_at: r.lastUsedAt ? new Date(r.lastUsedAt).toISOString() : null,
    requests_24h: Number(r.requests24h),
    revoked_at: iso(r.revokedAt),
  }));
}

export async function createOrgApiKey(db: Db, orgId: string, { name, rpm, ...controls }: { name: string; rpm?: number } & KeyControls) {
  const { id, key } = await createApiKey(db, { orgId, label: name, rpm, ...controls });
  return {
    id,
    key,
    name,
    prefix: displayPrefix(key),
    rpm: rpm ?? null,
    models: controls.models ?? null,
    expires_at: controls.expires_at ?? null,
    budget_usd: controls.budget_usd ?? null,
    budget_period: controls.budget_usd != null ? (controls.budget_period ?? 'month') : null,
  };
}

/** Changes a key of the organization's controls (lib/auth/credentials.ts); the key as listed, or null. */
export async function updateOrgApiKey(db: Db, orgId: string, id: string, controls: KeyControls) {
  if (!(await updateApiKey(db, { id, orgId }, controls))) return null;
  return (await listApiKeys(db, orgId)).find((k) => k.id === id) ?? null;
}

/** True when an active key of this organization was revoked. */
export const revokeOrgApiKey = (db: Db, orgId: string, id: string): Promise<boolean> => revokeApiKey(db, { id, orgId });

/**
 * The organization's settings: whether its completions may go to nodes admitted to the network (design
 * §20), and its budget over all its keys with what the period under way spent (design §17).
 */
export async function orgSettings(db: Db, orgId: string) {
  const row = await db.query.organizations.findFirst({
    where: eq(organizations.id, orgId),
    columns: { networkNodes: true, budgetUsd: true, budgetPeriod: true },
  });
  const [budget] = budgetsOf({ id: '', orgId, budgetUsd: null, budgetPeriod: null }, row);
  return { network_nodes: row?.networkNodes ?? true, budget: budget ? await budgetView(db, budget) : null };
}

/** Changes them; this process's API keys see the change at once (others within the credential cache's time). */
export async function setOrgSettings(
  db: Db,
  orgId: string,
  settings: { network_nodes?: boolean } & Pick<KeyControls, 'budget_usd' | 'budget_period'>,
) {
  await db
    .update(organizations)
    .set({
      ...(settings.network_nodes !== undefined ? { networkNodes: settings.network_nodes } : {}),
      ...budgetColumns(settings, organizations.budgetPeriod),
    })
    .where(eq(organizations.id, orgId));
  forgetPrincipals();
  return orgSettings(db, orgId);
}

export async function listOrgTokens(db: Db, orgId: string) {
  const rows = await db.select().from(orgTokens).where(eq(orgTokens.orgId, orgId)).orderBy(desc(orgTokens.createdAt));
  return rows.map((r) => ({ id: r.id, name: r.label, prefix: r.prefix, created_at: iso(r.createdAt), revoked_at: iso(r.revokedAt) }));
}

export async function createOrgTokenNamed(db: Db, orgId: string, { name }: { name: string }) {
  const { id, token } = await createOrgToken(db, { orgId, label: name });
  return { id, token, name, prefix: displayPrefix(token) };
}

/** True when an active token of this organization was revoked (its console sessions end with it). */
export async function revokeOrgTokenOf(db: Db, orgId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(orgTokens)
    .set({ revokedAt: new Date() })
    .where(and(eq(orgTokens.id, id), eq(orgTokens.orgId, orgId), isNull(orgTokens.revokedAt)))
    .returning({ id: orgTokens.id });
  forgetPrincipals();
  return rows.length > 0;
}

export async function listPartners(db: Db, orgId: string) {
  const rows = await db
    .select({
      id: partners.id,
      name: partners.name,
      prefix: partners.secretPrefix,
      createdAt: partners.createdAt,
      nodes: sql<number>`(select count(*)::int from ${nodes} n where n.partner_id = ${partners}.id)`,
    })
    .from(partners)
    .where(and(eq(partners.orgId, orgId), isNull(partners.revokedAt)))
    .orderBy(partners.createdAt);
  return rows.map((r) => ({ id: r.id, name: r.name, secret_prefix: r.prefix, created_at: iso(r.createdAt), nodes: Number(r.nodes) }));
}

export async function createOrgPartner(db: Db, orgId: string, { name }: { name: string }) {
  const { id, secret } = await createPartner(db, { orgId, name });
  return { id, name, secret, secret_prefix: displayPrefix(secret) };
}

/** A new secret for a partner of this organization; the old one stops working at once. Null when there is no such partner. */
export async function rotatePartnerSecret(db: Db, orgId: string, id: string) {
  const secret = generateToken('partnerSecret');
  const rows = await db
    .update(partners)
    .set({ secretHash: hashToken(secret), secretPrefix: displayPrefix(secret) })
    .where(and(eq(partners.id, id), eq(partners.orgId, orgId), isNull(partners.revokedAt)))
    .returning({ id: partners.id, name: partners.name });
  if (!rows[0]) return null;
  closePartnerTunnels(id, CLOSE.unauthorized, 'the partner secret was rotated'); // its agents must be given the new one
  return { id, name: rows[0].name, secret, secret_prefix: displayPrefix(secret) };
}

/** Renames a node of a partner of this organization (its public name); null when there is no such node. */
export async function renameNode(
  db: Db,
  orgId: string,
  { partnerId, externalId, name }: { partnerId: string; externalId: string; name: string },
) {
  const owned = await db.query.partners.findFirst({
    where: and(eq(partners.id, partnerId), eq(partners.orgId, orgId), isNull(partners.revokedAt)),
  });
  if (!owned) return null;
  const rows = await db
    .update(nodes)
    .set({ publicName: name })
    .where(and(eq(nodes.partnerId, partnerId), eq(nodes.externalId, externalId)))
    .returning({ id: nodes.externalId, name: nodes.publicName });
  return rows[0] ?? null;
}
