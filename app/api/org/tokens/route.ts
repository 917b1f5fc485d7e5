import { audit } from '@/lib/console/audit';
import { createOrgTokenNamed, listOrgTokens } from '@/lib/console/org';
import { namedCreateBody } from '@/lib/console/schema';
import { json, route } from '@/lib/http/route';

/** The organization's tokens: name, prefix, created, revoked. */
export const GET = route({ auth: 'orgToken' }, async ({ db, org }) => json({ data: await listOrgTokens(db, org.id) }));

/** A new org token; `token` is shown in this reply only. */
export const POST = route({ auth: 'orgToken', body: namedCreateBody }, async ({ db, org, body, actor, address }) => {
  const created = await createOrgTokenNamed(db, org.id, body);
  await audit(db, {
    orgId: org.id,
    actor,
    action: 'org_token.create',
    object: `org_token:${created.id}`,
    detail: { name: body.name },
    address,
  });
  return json({ data: created }, 201);
});
