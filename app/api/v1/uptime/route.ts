import { json, route } from '@/lib/http/route';
import { rangeOf, statsContext } from '@/lib/http/stats-route';
import { uptimes } from '@/lib/stats/queries';
import { uptimeQuery } from '@/lib/stats/schema';

/** Get node uptime (interface 4.3) → `{data: {uptime, partner_node_id}}`; total uptime without a full range. */
export const GET = route({ auth: 'partner', query: uptimeQuery }, async ({ db, query, partner }) => {
  const [data] = await uptimes(db, statsContext(partner), { partnerNodeIds: [query.partner_node_id], range: rangeOf(query) });
  return json({ data });
});
