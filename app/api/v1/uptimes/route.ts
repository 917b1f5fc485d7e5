import { rangeOf, withPartnerQuery } from '@/lib/http/stats-route';
import { uptimes } from '@/lib/stats/queries';
import { uptimesQuery } from '@/lib/stats/schema';

/** Uptime of up to 5 nodes (public reference; design §7) → `{data: [{uptime, partner_node_id}, …]}`. */
export const GET = withPartnerQuery(uptimesQuery, async ({ db, query, stats }) =>
  Response.json({ data: await uptimes(db, stats, { partnerNodeIds: query.partner_node_id, range: rangeOf(query) }) }),
);
