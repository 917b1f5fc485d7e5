import { createAlias, OWNER, toWire } from '@/lib/aliases/aliases';
import { aliasWireSchema, createAliasSchema } from '@/lib/aliases/schema';
import { aliasNotFound } from '@/lib/errors/link';
import { dataReply, json, route } from '@/lib/http/route';

/** Create alias (interface 4.5) → 201 `{data: alias}` without inserted_at. */
export const POST = route(
  {
    auth: 'orgToken',
    limit: 'link',
    body: createAliasSchema,
    badInput: aliasNotFound,
    doc: {
      summary: 'Create an alias',
      tag: 'Aliases',
      replies: { 201: { schema: dataReply(aliasWireSchema.omit({ inserted_at: true })), description: 'The alias, without inserted_at' } },
      errors: [400, 401, 429],
      example: { type: 'live', name: 'Launch stream', passcode: '482913', expired_at: 1798761600 },
    },
  },
  async ({ db, org, body }) => {
    const alias = await createAlias(db, { orgId: org.id, input: body });
    return json({ data: toWire(alias, { reveal: OWNER, insertedAt: false }) }, 201);
  },
);
