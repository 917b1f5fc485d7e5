import { z } from 'zod';
import { audit } from '@/lib/console/audit';
import { createOrgTokenNamed, listOrgTokens } from '@/lib/console/org';
import { namedCreateBody, orgTokenCreatedSchema, orgTokenSchema } from '@/lib/console/schema';
import { dataReply, json, route } from '@/lib/http/route';

/** The organization's tokens: name, prefix, created, revoked. */
export const GET = route(
  {
    auth: 'orgToken',
    doc: {
      summary: "The organization's tokens",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(orgTokenSchema)), description: 'Newest first' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org }) => json({ data: await listOrgTokens(db, org.id) }),
);

/** A new org token; `token` is shown in this reply only. */
export const POST = route(
  {
    auth: 'orgToken',
    body: namedCreateBody,
    doc: {
      summary: 'Create an org token (shown once)',
      tag: 'Console',
      beyond: true,
      replies: { 201: { schema: dataReply(orgTokenCreatedSchema), description: 'The token, in this reply only' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, body, actor, address }) => {
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
  },
);
