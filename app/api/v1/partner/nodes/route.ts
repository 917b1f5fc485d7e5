import { withPartnerQuery } from '@/lib/http/stats-route';
import { listNodes } from '@/lib/stats/queries';
import { listNodesQuery } from '@/lib/stats/schema';

/** List partner nodes (interface 4.2) → `{data: {metadata: {after, total_count}, entries}}`. */
export const GET = withPartnerQuery(listNodesQuery, async ({ db, query, stats }) =>
  Response.json({ data: await listNodes(db, stats, { partnerNodeId: query.partner_node_id, after: query.after, limit: query.limit }) }),
);
