import { deleteAlias } from '@/lib/aliases/aliases';
import { ALIAS_ID_PATTERN, aliasPathParams } from '@/lib/aliases/schema';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** Delete alias (interface 4.8) → 200 `{message}`; 404 `NOT FOUND` when the organization has no such alias. */
export const DELETE = route({ auth: 'orgToken', limit: 'link', params: aliasPathParams }, async ({ db, org, params }) => {
  if (!ALIAS_ID_PATTERN.test(params.id) || !(await deleteAlias(db, { orgId: org.id, id: params.id })))
    throw notFound(`no alias ${params.id} in this organization`);
  return json({ message: 'Alias deleted successfully.' });
});
