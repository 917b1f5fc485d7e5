import { listAudit } from '@/lib/console/audit';
import { auditQuery } from '@/lib/console/schema';
import { json, route } from '@/lib/http/route';

/** The instance's audit log: every change, of every organization and instance-wide, newest first. */
export const GET = route({ auth: 'instance', query: auditQuery }, async ({ db, query }) =>
  json({ data: await listAudit(db, { orgId: 'all', limit: query.limit, before: query.before }) }),
);
