import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { type ApiKeyPrincipal, budgetsOf, createApiKey } from '@/lib/auth/credentials';
import type { Db } from '@/lib/db/client';
import { apiKeys, organizations } from '@/lib/db/schema';

/**
 * The playground's API key: a signed-in organization chats without pasting a key, and what it uses is
 * counted on a key of its own, listed with the others (label below) and revocable like them. Revoked,
 * it is replaced by a new one at the next playground message.
 */
export const PLAYGROUND_LABEL = 'Console playground';
/** Arbitrary constant naming the playground key's making among PostgreSQL advisory locks (with the organization's hash). */
const PLAYGROUND_LOCK_ID = 727_166_004;

// An expired playground key is replaced like a revoked one.
const current = (db: Db, orgId: string) =>
  db.query.apiKeys.findFirst({
    where: and(
      eq(apiKeys.orgId, orgId),
      eq(apiKeys.label, PLAYGROUND_LABEL),
      isNull(apiKeys.revokedAt),
      or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, new Date())),
    ),
    orderBy: desc(apiKeys.createdAt),
  });

export async function playgroundKey(db: Db, orgId: string): Promise<ApiKeyPrincipal> {
  // Made under a lock per organization, so that first messages at the same instant (two tabs, two
  // instances) share one key rather than making one each.
  const row =
    (await current(db, orgId)) ??
    (await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${PLAYGROUND_LOCK_ID}, hashtext(${orgId}))`);
      const made = await current(tx, orgId);
      if (made) return made;
      await createApiKey(tx, { orgId, label: PLAYGROUND_LABEL });
      return (await current(tx, orgId))!;
    }));
  const org = await db.query.organizations.findFirst({
    where: eq(organizations.id, orgId),
    columns: { networkNodes: true, budgetUsd: true, budgetPeriod: true },
  });
  return {
    id: row.id,
    orgId,
    rpm: row.rpm,
    prefix: row.prefix,
    label: row.label,
    networkNodes: org?.networkNodes ?? true,
    models: row.models ?? null,
    expiresAt: row.expiresAt?.getTime() ?? null,
    budgets: budgetsOf(row, org),
    preferences: row.preferences ?? null,
  };
}
