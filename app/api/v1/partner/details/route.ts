import { json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { nodeStatuses } from '@/lib/stats/queries';
import { detailsQuery } from '@/lib/stats/schema';

/** Partner node details (interface 4.4) → `{data: [node status, …]}`, one per `partner_node_id[]`, in order. */
export const GET = route({ auth: 'partner', query: detailsQuery }, async ({ db, query, partner }) =>
  json({ data: await nodeStatuses(db, statsContext(partner), { partnerNodeIds: query.partner_node_id }) }),
);
