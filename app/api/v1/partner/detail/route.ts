import { withPartnerQuery } from '@/lib/http/stats-route';
import { nodeStatuses } from '@/lib/stats/queries';
import { detailQuery } from '@/lib/stats/schema';

/** One node's status (public reference; design §7) → `{data: {connection_status, total_uptime, partner_node_id}}`. */
export const GET = withPartnerQuery(detailQuery, async ({ db, query, stats }) => {
  const [data] = await nodeStatuses(db, stats, { partnerNodeIds: [query.partner_node_id] });
  return Response.json({ data });
});
