import { listAliases, OWNER, toWire } from '@/lib/aliases/aliases';
import { aliasPageSchema, listAliasesQuerySchema } from '@/lib/aliases/schema';
import { aliasNotFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** List aliases (interface 4.6) → `{after, entries}`, the token's organization only, newest first. */
export const GET = route(
  {
    auth: 'orgToken',
    limit: 'link',
    query: listAliasesQuerySchema,
    badInput: aliasNotFound,
    doc: {
      summary: "List the organization's aliases, newest first",
      tag: 'Aliases',
      replies: { 200: { schema: aliasPageSchema, description: 'One page of aliases' } },
      errors: [400, 401, 429],
    },
  },
  async ({ db, org, query }) => {
    const page = await listAliases(db, { orgId: org.id, ...query });
    return json({ after: page.after, entries: page.entries.map((a) => toWire(a, { reveal: OWNER, insertedAt: true })) });
  },
);
