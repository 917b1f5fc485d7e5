import { and, desc, eq, isNull, like, lt, type SQL } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { auditLog } from '@/lib/db/schema';

/*
 * The audit log (design §11): every change made through the console or the admin API — who (a
 * session's or a token's id, never a token), what, to which object, when and from which address.
 * Callers pass only ids, names and settings; `detail` is checked here never to hold a credential.
 */
export type AuditEntry = {
  orgId: string | null;
  actor: string;
  action: string;
  object?: string | null;
  detail?: Record<string, unknown>;
  address?: string | null;
};

/** Anything that looks like one of Triad's credentials. */
const SECRET_LIKE = /(org_|sk_live_|pt_sec_|adm_)[A-Za-z0-9_-]{20,}/g;

export async function audit(db: Db, entry: AuditEntry): Promise<void> {
  // Callers pass no secret; a name that holds something shaped like one is kept redacted all the same.
  const detail = entry.detail
    ? (JSON.parse(JSON.stringify(entry.detail).replace(SECRET_LIKE, '$1[redacted]')) as Record<string, unknown>)
    : null;
  await db.insert(auditLog).values({
    orgId: entry.orgId,
    actor: entry.actor,
    action: entry.action,
    object: entry.object ?? null,
    detail,
    address: entry.address?.slice(0, 64) ?? null,
  });
}

export type AuditRow = {
  id: number;
  at: string;
  org_id: string | null;
  actor: string;
  action: string;
  object: string | null;
  detail: Record<string, unknown> | null;
  address: string | null;
};

/** Newest first, `limit` at most, before the entry `before` (a cursor: the last id of the previous page). */
export async function listAudit(
  db: Db,
  { orgId, limit, before, action }: { orgId: string | null | 'all'; limit: number; before?: number; action?: string },
): Promise<AuditRow[]> {
  const where: SQL[] = [];
  if (orgId === null) where.push(isNull(auditLog.orgId));
  else if (orgId !== 'all') where.push(eq(auditLog.orgId, orgId));
  if (before !== undefined) where.push(lt(auditLog.id, before));
  // An action (`api_key.revoke`), or every action on a kind of object (`api_key`: `api_key.*`).
  if (action) where.push(action.includes('.') ? eq(auditLog.action, action) : like(auditLog.action, `${action.replaceAll('_', '\\_')}.%`));
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    at: r.createdAt.toISOString(),
    org_id: r.orgId,
    actor: r.actor,
    action: r.action,
    object: r.object,
    detail: r.detail ?? null,
    address: r.address,
  }));
}
