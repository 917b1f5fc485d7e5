import { idParams } from '@/lib/core/input';
import { audit } from '@/lib/console/audit';
import { revokeOrgTokenOf } from '@/lib/console/org';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** Revokes an org token of the organization; the console sessions signed in with it end too. */
export const DELETE = route(
  {
    auth: 'orgToken',
    params: idParams,
    doc: {
      summary: 'Revoke an org token (sessions signed in with it end)',
      tag: 'Console',
      beyond: true,
      replies: { 200: { description: '{data: {revoked: true}}' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, params, actor, address }) => {
    if (!(await revokeOrgTokenOf(db, org.id, params.id))) throw notFound('no active org token of this organization has that id');
    await audit(db, { orgId: org.id, actor, action: 'org_token.revoke', object: `org_token:${params.id}`, address });
    return json({ data: { revoked: true } });
  },
);
