import { createAlias, OWNER, toWire } from '@/lib/aliases/aliases';
import { createAliasSchema } from '@/lib/aliases/schema';
import { aliasNotFound } from '@/lib/errors/link';
import { readJsonBody } from '@/lib/http/body';
import { withOrgToken } from '@/lib/http/link-route';
import { parseWith } from '@/lib/http/validation';

/** Create alias (interface 4.5) → 201 `{data: alias}` without inserted_at. */
export const POST = withOrgToken(
  async ({ request, db, org }) => {
    const input = parseWith(createAliasSchema, await readJsonBody(request));
    const alias = await createAlias(db, { orgId: org.id, input });
    return Response.json({ data: toWire(alias, { reveal: OWNER, insertedAt: false }) }, { status: 201 });
  },
  { badInput: aliasNotFound, limiter: 'link' },
);
