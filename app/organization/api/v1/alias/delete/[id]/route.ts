import { deleteAlias } from '@/lib/aliases/aliases';
import { notFound } from '@/lib/errors/link';
import { withOrgToken } from '@/lib/http/link-route';
import { ALIAS_ID_PATTERN } from '@/lib/aliases/schema';

/** Delete alias (interface 4.8) → 200 `{message}`; 404 `NOT FOUND` when the organization has no such alias. */
export const DELETE = withOrgToken<{ id: string }>(
  async ({ db, org, params }) => {
    if (!ALIAS_ID_PATTERN.test(params.id) || !(await deleteAlias(db, { orgId: org.id, id: params.id })))
      throw notFound(`no alias ${params.id} in this organization`);
    return Response.json({ message: 'Alias deleted successfully.' });
  },
  { limiter: 'link' },
);
