import { z } from 'zod';
import { audit } from '@/lib/console/audit';
import { createOrganizationWithToken, listOrganizations } from '@/lib/console/instance';
import { organizationCreatedSchema, organizationSchema, orgCreateBody } from '@/lib/console/schema';
import { dataReply, json, route } from '@/lib/http/route';

/** Every organization of the instance (admin token or administrator's session). */
export const GET = route(
  {
    auth: 'instance',
    doc: {
      summary: 'Every organization of the instance',
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(organizationSchema)), description: 'Newest first' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db }) => json({ data: await listOrganizations(db) }),
);

/** A new organization with its first org token (shown in this reply only). */
export const POST = route(
  {
    auth: 'instance',
    body: orgCreateBody,
    doc: {
      summary: 'Create an organization and its first org token (shown once)',
      tag: 'Console',
      beyond: true,
      replies: { 201: { schema: dataReply(organizationCreatedSchema), description: 'The organization and its token' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, body, actor, address }) => {
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
  },
);
