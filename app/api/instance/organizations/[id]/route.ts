import { idParams } from '@/lib/core/input';
import { audit } from '@/lib/console/audit';
import { setSuspended } from '@/lib/console/instance';
import { orgUpdateBody } from '@/lib/console/schema';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** Suspends (`{"suspended": true}`) or resumes an organization. */
export const PATCH = route(
  {
    auth: 'instance',
    params: idParams,
    body: orgUpdateBody,
    doc: {
      summary: "Suspend or resume an organization (a suspended one's every credential gets 403)",
      tag: 'Console',
      beyond: true,
      replies: { 200: { description: '{data: {id, name, suspended_at}}' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, params, body, actor, address }) => {
    const org = await setSuspended(db, params.id, body.suspended);
    if (!org) throw notFound('no organization has that id');
    const action = body.suspended ? 'organization.suspend' : 'organization.resume';
    await audit(db, { orgId: org.id, actor, action, object: `organization:${org.id}`, address });
    return json({ data: org });
  },
);
