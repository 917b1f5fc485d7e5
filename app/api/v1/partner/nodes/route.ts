import { json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { listNodes } from '@/lib/stats/queries';
import { listNodesQuery } from '@/lib/stats/schema';

/** List partner nodes (interface 4.2) → `{data: {metadata: {after, total_count}, entries}}`. */
export const GET = route({ auth: 'partner', query: listNodesQuery }, async ({ db, query, partner }) =>
  json({
    data: await listNodes(db, statsContext(partner), { partnerNodeId: query.partner_node_id, after: query.after, limit: query.limit }),
  }),
);
