import { idParams } from '@/lib/core/input';
import { audit } from '@/lib/console/audit';
import { rotatePartnerSecret } from '@/lib/console/org';
import { partnerSecretSchema } from '@/lib/console/schema';
import { notFound } from '@/lib/errors/link';
import { dataReply, json, route } from '@/lib/http/route';

/** A new secret for the partner, shown in this reply only; the old one is refused from now on. */
export const POST = route(
  {
    auth: 'orgToken',
    params: idParams,
    doc: {
      summary: 'A new partner secret (shown once); the old one is refused at once',
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(partnerSecretSchema), description: 'The new secret, in this reply only' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, params, actor, address }) => {
    const rotated = await rotatePartnerSecret(db, org.id, params.id);
    if (!rotated) throw notFound('no partner of this organization has that id');
    await audit(db, { orgId: org.id, actor, action: 'partner.rotate_secret', object: `partner:${params.id}`, address });
    return json({ data: rotated });
  },
);
