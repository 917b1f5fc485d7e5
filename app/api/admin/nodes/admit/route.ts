import { audit } from '@/lib/console/audit';
import { dataReply, json, route } from '@/lib/http/route';
import { admissionAudit, admissionSchema, admissionViewSchema, setAdmission } from '@/lib/providers/admission';
import { providerCall } from '@/lib/providers/http';

/** Admits a node, or a partner as a whole, to the network: it then serves every organization (design §20). */
export const POST = route(
  {
    auth: 'instance',
    body: admissionSchema,
    doc: {
      summary: 'Admit a node (or a partner with all its nodes) to the network: it serves every organization',
      tag: 'Providers',
      beyond: true,
      replies: { 200: { schema: dataReply(admissionViewSchema), description: 'The admission as it now stands' } },
      errors: [400, 401, 403, 404, 409, 413],
    },
  },
  async ({ db, body, actor, address }) => {
    const view = await providerCall(() => setAdmission(db, body, true, actor));
    await audit(db, { ...admissionAudit(view, true), actor, address });
    return json({ data: view });
  },
);
