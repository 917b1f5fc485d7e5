import { rangeOf, withPartnerQuery } from '@/lib/http/stats-route';
import { uptimes } from '@/lib/stats/queries';
import { uptimeQuery } from '@/lib/stats/schema';

/** Get node uptime (interface 4.3) → `{data: {uptime, partner_node_id}}`; total uptime without a full range. */
export const GET = withPartnerQuery(uptimeQuery, async ({ db, query, stats }) => {
  const [data] = await uptimes(db, stats, { partnerNodeIds: [query.partner_node_id], range: rangeOf(query) });
  return Response.json({ data });
});
