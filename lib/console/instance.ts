import { desc, eq, sql } from 'drizzle-orm';
import { createOrganization, createOrgToken } from '@/lib/auth/credentials';
import { forgetPrincipals } from '@/lib/auth/principal-cache';
import type { Db } from '@/lib/db/client';
import { apiKeys, organizations, partners } from '@/lib/db/schema';

/* What an instance administrator manages from the console (design §11): organizations. */

export async function listOrganizations(db: Db) {
  const rows = await db
    .select({
      id: organizations.id,
      name: organizations.name,
      createdAt: organizations.createdAt,
      suspendedAt: organizations.suspendedAt,
      apiKeys: sql<number>`(select count(*)::int from ${apiKeys} k where k.org_id = ${organizations}.id and k.revoked_at is null)`,
      partners: sql<number>`(select count(*)::int from ${partners} p where p.org_id = ${organizations}.id and p.revoked_at is null)`,
    })
    .from(organizations)
    .orderBy(desc(organizations.createdAt));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    created_at: r.createdAt.toISOString(),
    suspended_at: r.suspendedAt?.toISOString() ?? null,
    api_keys: Number(r.apiKeys),
    partners: Number(r.partners),
  }));
}

/** A new organization and its first org token (shown once). */
export async function createOrganizationWithToken(db: Db, { name }: { name: string }) {
  const org = await createOrganization(db, { name });
  const { id: tokenId, token } = await createOrgToken(db, { orgId: org.id, label: 'first token' });
  return { id: org.id, name: org.name, org_token: token, org_token_id: tokenId };
}

/** Suspends (or resumes) an organization; null when there is none. Every credential of a suspended one gets 403. */
export async function setSuspended(db: Db, id: string, suspended: boolean) {
  const rows = await db
    .update(organizations)
    .set({ suspendedAt: suspended ? new Date() : null })
    .where(eq(organizations.id, id))
    .returning({ id: organizations.id, name: organizations.name, suspendedAt: organizations.suspendedAt });
  forgetPrincipals();
  const row = rows[0];
  return row ? { id: row.id, name: row.name, suspended_at: row.suspendedAt?.toISOString() ?? null } : null;
}
