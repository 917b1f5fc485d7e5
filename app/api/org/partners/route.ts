import { audit } from '@/lib/console/audit';
import { createOrgPartner, listPartners } from '@/lib/console/org';
import { namedCreateBody } from '@/lib/console/schema';
import { json, route } from '@/lib/http/route';

/** The organization's partners: id, name, the secret's prefix, created, how many nodes. */
export const GET = route({ auth: 'orgToken' }, async ({ db, org }) => json({ data: await listPartners(db, org.id) }));

/** A new partner; its `secret` is shown in this reply only. */
export const POST = route({ auth: 'orgToken', body: namedCreateBody }, async ({ db, org, body, actor, address }) => {
  const created = await createOrgPartner(db, org.id, body);
  await audit(db, {
    orgId: org.id,
    actor,
    action: 'partner.create',
    object: `partner:${created.id}`,
    detail: { name: body.name },
    address,
  });
  return json({ data: created }, 201);
});
