import { OWNER, toWire, updateAlias } from '@/lib/aliases/aliases';
import { updateAliasSchema } from '@/lib/aliases/schema';
import { aliasNotFound, notFound } from '@/lib/errors/link';
import { readJsonBody } from '@/lib/http/body';
import { withOrgToken } from '@/lib/http/link-route';
import { parseWith } from '@/lib/http/validation';

/** Update alias (public reference; DESIGN.md §7): `type` required, omitted fields unchanged, null clears. */
export const POST = withOrgToken<{ id: string }>(
  async ({ request, db, org, params }) => {
    const input = parseWith(updateAliasSchema, await readJsonBody(request));
    const alias = await updateAlias(db, { orgId: org.id, id: params.id, input });
    if (!alias) throw notFound(`no alias ${params.id} in this organization`);
    return Response.json({ data: toWire(alias, { reveal: OWNER, insertedAt: true }) });
  },
  { badInput: aliasNotFound, rateLimited: true },
);
