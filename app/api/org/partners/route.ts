import { z } from 'zod';
import { audit } from '@/lib/console/audit';
import { createOrgPartner, listPartners } from '@/lib/console/org';
import { namedCreateBody, partnerSchema, partnerSecretSchema } from '@/lib/console/schema';
import { dataReply, json, route } from '@/lib/http/route';

/** The organization's partners: id, name, the secret's prefix, created, how many nodes. */
export const GET = route(
  {
    auth: 'orgToken',
    doc: {
      summary: "The organization's partners",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(partnerSchema)), description: 'Oldest first' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org }) => json({ data: await listPartners(db, org.id) }),
);

/** A new partner; its `secret` is shown in this reply only. */
export const POST = route(
  {
    auth: 'orgToken',
    body: namedCreateBody,
    doc: {
      summary: 'Create a partner (its secret shown once)',
      tag: 'Console',
      beyond: true,
      replies: { 201: { schema: dataReply(partnerSecretSchema), description: 'The partner and its secret, in this reply only' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, body, actor, address }) => {
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
  },
);
