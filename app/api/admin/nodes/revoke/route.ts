import { audit } from '@/lib/console/audit';
import { dataReply, json, route } from '@/lib/http/route';
import { admissionAudit, admissionSchema, admissionViewSchema, setAdmission } from '@/lib/providers/admission';
import { providerCall } from '@/lib/providers/http';

/** Revokes a node's or a partner's admission: its nodes serve their own organization only again, from the next request (design §20). */
export const POST = route(
  {
    auth: 'instance',
    body: admissionSchema,
    doc: {
      summary: "Revoke a node's (or a partner's) admission: its nodes serve their own organization only",
      tag: 'Providers',
      beyond: true,
      replies: { 200: { schema: dataReply(admissionViewSchema), description: 'The admission as it now stands' } },
      errors: [400, 401, 403, 404, 409, 413],
    },
  },
  async ({ db, body, actor, address }) => {
    const view = await providerCall(() => setAdmission(db, body, false, actor));
    await audit(db, { ...admissionAudit(view, false), actor, address });
    return json({ data: view });
  },
);
