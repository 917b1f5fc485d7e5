import { audit } from '@/lib/console/audit';
import { rotatePartnerSecret } from '@/lib/console/org';
import { idParams } from '@/lib/console/schema';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** A new secret for the partner, shown in this reply only; the old one is refused from now on. */
export const POST = route({ auth: 'orgToken', params: idParams }, async ({ db, org, params, actor, address }) => {
  const rotated = await rotatePartnerSecret(db, org.id, params.id);
  if (!rotated) throw notFound('no partner of this organization has that id');
  await audit(db, { orgId: org.id, actor, action: 'partner.rotate_secret', object: `partner:${params.id}`, address });
  return json({ data: rotated });
});
