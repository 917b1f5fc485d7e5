import { z } from 'zod';
import { listAudit } from '@/lib/console/audit';
import { auditEntrySchema, auditQuery } from '@/lib/console/schema';
import { dataReply, json, route } from '@/lib/http/route';

/** The organization's audit log, newest first (`before`: the last id of the previous page). */
export const GET = route(
  {
    auth: 'orgToken',
    query: auditQuery,
    doc: {
      summary: "The organization's audit log, newest first",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(auditEntrySchema)), description: 'Entries; page with before=<last id>' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, query }) =>
    json({ data: await listAudit(db, { orgId: org.id, limit: query.limit, before: query.before, action: query.action }) }),
);
