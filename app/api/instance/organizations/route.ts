import { audit } from '@/lib/console/audit';
import { createOrganizationWithToken, listOrganizations } from '@/lib/console/instance';
import { orgCreateBody } from '@/lib/console/schema';
import { json, route } from '@/lib/http/route';

/** Every organization of the instance (admin token or administrator's session). */
export const GET = route({ auth: 'instance' }, async ({ db }) => json({ data: await listOrganizations(db) }));

/** A new organization with its first org token (shown in this reply only). */
export const POST = route({ auth: 'instance', body: orgCreateBody }, async ({ db, body, actor, address }) => {
  const created = await createOrganizationWithToken(db, body);
  await audit(db, {
    orgId: created.id,
    actor,
    action: 'organization.create',
    object: `organization:${created.id}`,
    detail: { name: body.name },
    address,
  });
  return json({ data: created }, 201);
});
