import { z } from 'zod';
import { deleteAlias } from '@/lib/aliases/aliases';
import { ALIAS_ID_PATTERN, aliasPathParams } from '@/lib/aliases/schema';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** Delete alias (interface 4.8) → 200 `{message}`; 404 `NOT FOUND` when the organization has no such alias. */
export const DELETE = route(
  {
    auth: 'orgToken',
    limit: 'link',
    params: aliasPathParams,
    doc: {
      summary: 'Delete an alias for good',
      tag: 'Aliases',
      replies: { 200: { schema: z.object({ message: z.string() }), description: '{"message":"Alias deleted successfully."}' } },
      errors: [401, 404, 429],
    },
  },
  async ({ db, org, params }) => {
    if (!ALIAS_ID_PATTERN.test(params.id) || !(await deleteAlias(db, { orgId: org.id, id: params.id })))
      throw notFound(`no alias ${params.id} in this organization`);
    return json({ message: 'Alias deleted successfully.' });
  },
);
