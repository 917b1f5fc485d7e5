import { OWNER, toWire, updateAlias } from '@/lib/aliases/aliases';
import { ALIAS_ID_PATTERN, aliasPathParams, aliasWireSchema, updateAliasSchema } from '@/lib/aliases/schema';
import { aliasNotFound, notFound } from '@/lib/errors/link';
import { dataReply, json, route } from '@/lib/http/route';

/** Update alias (public reference; design §7): `type` required, omitted fields unchanged, null clears. */
export const POST = route(
  {
    auth: 'orgToken',
    limit: 'link',
    params: aliasPathParams,
    body: updateAliasSchema,
    badInput: aliasNotFound,
    doc: {
      summary: 'Update an alias (type required; omitted fields stay; null clears)',
      tag: 'Aliases',
      replies: { 200: { schema: dataReply(aliasWireSchema), description: 'The alias' } },
      errors: [400, 401, 404, 429],
    },
  },
  async ({ db, org, params, body }) => {
    const alias = ALIAS_ID_PATTERN.test(params.id) ? await updateAlias(db, { orgId: org.id, id: params.id, input: body }) : null;
    if (!alias) throw notFound(`no alias ${params.id} in this organization`);
    return json({ data: toWire(alias, { reveal: OWNER, insertedAt: true }) });
  },
);
