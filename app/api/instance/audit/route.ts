import { z } from 'zod';
import { listAudit } from '@/lib/console/audit';
import { auditEntrySchema, auditQuery } from '@/lib/console/schema';
import { dataReply, json, route } from '@/lib/http/route';

/** The instance's audit log: every change, of every organization and instance-wide, newest first. */
export const GET = route(
  {
    auth: 'instance',
    query: auditQuery,
    doc: {
      summary: 'The audit log of the whole instance, newest first',
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(auditEntrySchema)), description: 'Entries; page with before=<last id>' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, query }) =>
    json({ data: await listAudit(db, { orgId: 'all', limit: query.limit, before: query.before, action: query.action }) }),
);
