import { listAudit } from '@/lib/console/audit';
import { auditQuery } from '@/lib/console/schema';
import { json, route } from '@/lib/http/route';

/** The organization's audit log, newest first (`before`: the last id of the previous page). */
export const GET = route({ auth: 'orgToken', query: auditQuery }, async ({ db, org, query }) =>
  json({ data: await listAudit(db, { orgId: org.id, limit: query.limit, before: query.before }) }),
);
