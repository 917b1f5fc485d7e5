import { audit } from '@/lib/console/audit';
import { setSuspended } from '@/lib/console/instance';
import { idParams, orgUpdateBody } from '@/lib/console/schema';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** Suspends (`{"suspended": true}`) or resumes an organization. */
export const PATCH = route({ auth: 'instance', params: idParams, body: orgUpdateBody }, async ({ db, params, body, actor, address }) => {
  const org = await setSuspended(db, params.id, body.suspended);
  if (!org) throw notFound('no organization has that id');
  const action = body.suspended ? 'organization.suspend' : 'organization.resume';
  await audit(db, { orgId: org.id, actor, action, object: `organization:${org.id}`, address });
  return json({ data: org });
});
