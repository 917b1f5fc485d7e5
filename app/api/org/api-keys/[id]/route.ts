import { audit } from '@/lib/console/audit';
import { revokeOrgApiKey } from '@/lib/console/org';
import { idParams } from '@/lib/console/schema';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** Revokes an API key of the organization: the chat API refuses it at once (401). */
export const DELETE = route(
  {
    auth: 'orgToken',
    params: idParams,
    doc: {
      summary: 'Revoke an API key (the chat API refuses it at once)',
      tag: 'Console',
      beyond: true,
      replies: { 200: { description: '{data: {revoked: true}}' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, params, actor, address }) => {
    if (!(await revokeOrgApiKey(db, org.id, params.id))) throw notFound('no active API key of this organization has that id');
    await audit(db, { orgId: org.id, actor, action: 'api_key.revoke', object: `api_key:${params.id}`, address });
    return json({ data: { revoked: true } });
  },
);
