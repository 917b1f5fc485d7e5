import { dataReply, json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { nodeStatuses } from '@/lib/stats/queries';
import { detailQuery, nodeStatusSchema } from '@/lib/stats/schema';

/** One node's status (public reference; design §7) → `{data: {connection_status, total_uptime, partner_node_id}}`. */
export const GET = route(
  {
    auth: 'partner',
    query: detailQuery,
    doc: {
      summary: 'Status and total uptime of one node',
      tag: 'Partner statistics',
      replies: { 200: { schema: dataReply(nodeStatusSchema), description: 'Node status' } },
      errors: [400, 401, 429],
    },
  },
  async ({ db, query, partner }) => {
    const [data] = await nodeStatuses(db, statsContext(partner), { partnerNodeIds: [query.partner_node_id] });
    return json({ data });
  },
);
