import { dataReply, json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { listNodes } from '@/lib/stats/queries';
import { listNodesQuery, nodePageSchema } from '@/lib/stats/schema';

/** List partner nodes (interface 4.2) → `{data: {metadata: {after, total_count}, entries}}`. */
export const GET = route(
  {
    auth: 'partner',
    query: listNodesQuery,
    doc: {
      summary: 'List partner nodes',
      tag: 'Partner statistics',
      replies: { 200: { schema: dataReply(nodePageSchema), description: 'One page of nodes' } },
      errors: [400, 401, 429],
    },
  },
  async ({ db, query, partner }) =>
    json({
      data: await listNodes(db, statsContext(partner), { partnerNodeId: query.partner_node_id, after: query.after, limit: query.limit }),
    }),
);
