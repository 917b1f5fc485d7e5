import { readJsonBody } from '@/lib/http/body';
import { withOrgToken } from '@/lib/http/link-route';
import { requirePartner, statsContext } from '@/lib/http/stats-route';
import { parseWith } from '@/lib/http/validation';
import { ingestEvents } from '@/lib/stats/ingest';
import { nodeEventsBody } from '@/lib/stats/schema';

/** Ingest node events (design §5) → `{data: {accepted: N}}`; a batch is stored whole or not at all. */
export const POST = withOrgToken(async ({ request, db, org }) => {
  const body = parseWith(nodeEventsBody, await readJsonBody(request));
  const partner = await requirePartner(db, org, body.secret);
  const { heartbeatTimeoutMs } = statsContext(partner);
  return Response.json({ data: await ingestEvents(db, { partnerId: partner.id, events: body.events, heartbeatTimeoutMs }) });
});
