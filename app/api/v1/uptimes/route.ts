import { json, route } from '@/lib/http/route';
import { rangeOf, statsContext } from '@/lib/http/stats-route';
import { uptimes } from '@/lib/stats/queries';
import { uptimesQuery } from '@/lib/stats/schema';

/** Uptime of up to 5 nodes (public reference; design §7) → `{data: [{uptime, partner_node_id}, …]}`. */
export const GET = route({ auth: 'partner', query: uptimesQuery }, async ({ db, query, partner }) =>
  json({ data: await uptimes(db, statsContext(partner), { partnerNodeIds: query.partner_node_id, range: rangeOf(query) }) }),
);
