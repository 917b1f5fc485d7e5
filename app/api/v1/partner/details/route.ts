import { withPartnerQuery } from '@/lib/http/stats-route';
import { nodeStatuses } from '@/lib/stats/queries';
import { detailsQuery } from '@/lib/stats/schema';

/** Partner node details (interface 4.4) → `{data: [node status, …]}`, one per `partner_node_id[]`, in order. */
export const GET = withPartnerQuery(detailsQuery, async ({ db, query, stats }) =>
  Response.json({ data: await nodeStatuses(db, stats, { partnerNodeIds: query.partner_node_id }) }),
);
