import { listAliases, OWNER, toWire } from '@/lib/aliases/aliases';
import { listAliasesQuerySchema } from '@/lib/aliases/schema';
import { aliasNotFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** List aliases (interface 4.6) → `{after, entries}`, the token's organization only, newest first. */
export const GET = route(
  { auth: 'orgToken', limit: 'link', query: listAliasesQuerySchema, badInput: aliasNotFound },
  async ({ db, org, query }) => {
    const page = await listAliases(db, { orgId: org.id, ...query });
    return json({ after: page.after, entries: page.entries.map((a) => toWire(a, { reveal: OWNER, insertedAt: true })) });
  },
);
