import { readJsonBody } from '@/lib/http/body';
import { withOrgToken } from '@/lib/http/link-route';
import { requirePartner } from '@/lib/http/stats-route';
import { parseWith } from '@/lib/http/validation';
import { registerNode } from '@/lib/stats/nodes';
import { registerNodeBody } from '@/lib/stats/schema';

/** Register a node (public reference's call shape; design §5) → `{data: true}`. Idempotent. */
export const POST = withOrgToken(async ({ request, db, org }) => {
  const body = parseWith(registerNodeBody, await readJsonBody(request));
  const partner = await requirePartner(db, org, body.secret);
  await registerNode(db, { partnerId: partner.id, externalId: body.id, name: body.name, ip: body.ip });
  return Response.json({ data: true });
});
