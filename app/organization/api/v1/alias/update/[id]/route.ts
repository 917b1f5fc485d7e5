import { OWNER, toWire, updateAlias } from '@/lib/aliases/aliases';
import { aliasNotFound, notFound } from '@/lib/errors/link';
import { readJsonBody } from '@/lib/http/body';
import { withOrgToken } from '@/lib/http/link-route';
import { ALIAS_ID_PATTERN, updateAliasSchema } from '@/lib/aliases/schema';
import { parseWith } from '@/lib/http/validation';

/** Update alias (public reference; design §7): `type` required, omitted fields unchanged, null clears. */
export const POST = withOrgToken<{ id: string }>(
  async ({ request, db, org, params }) => {
    const input = parseWith(updateAliasSchema, await readJsonBody(request));
    const alias = ALIAS_ID_PATTERN.test(params.id) ? await updateAlias(db, { orgId: org.id, id: params.id, input }) : null;
    if (!alias) throw notFound(`no alias ${params.id} in this organization`);
    return Response.json({ data: toWire(alias, { reveal: OWNER, insertedAt: true }) });
  },
  { badInput: aliasNotFound, limiter: 'link' },
);
