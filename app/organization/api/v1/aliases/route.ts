import { listAliases, OWNER, toWire } from '@/lib/aliases/aliases';
import { listAliasesQuerySchema } from '@/lib/aliases/schema';
import { aliasNotFound } from '@/lib/errors/link';
import { withOrgToken } from '@/lib/http/link-route';
import { parseWith, queryObject } from '@/lib/http/validation';

/** List aliases (interface 4.6) → `{after, entries}`, the token's organization only, newest first. */
export const GET = withOrgToken(
  async ({ request, db, org }) => {
    const query = parseWith(listAliasesQuerySchema, queryObject(request.url));
    const page = await listAliases(db, { orgId: org.id, ...query });
    return Response.json({ after: page.after, entries: page.entries.map((a) => toWire(a, { reveal: OWNER, insertedAt: true })) });
  },
  { badInput: aliasNotFound, limiter: 'link' },
);
