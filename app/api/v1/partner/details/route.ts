import { z } from 'zod';
import { dataReply, json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { nodeStatuses } from '@/lib/stats/queries';
import { detailsQuery, nodeStatusSchema } from '@/lib/stats/schema';

/** Partner node details (interface 4.4) → `{data: [node status, …]}`, one per `partner_node_id[]`, in order. */
export const GET = route(
  {
    auth: 'partner',
    query: detailsQuery,
    doc: {
      summary: 'Status and total uptime of several nodes (repeat partner_node_id[])',
      tag: 'Partner statistics',
      replies: { 200: { schema: dataReply(z.array(nodeStatusSchema)), description: 'One status per requested node, in order' } },
      errors: [400, 401, 429],
      repeated: ['partner_node_id'],
    },
  },
  async ({ db, query, partner }) =>
    json({ data: await nodeStatuses(db, statsContext(partner), { partnerNodeIds: query.partner_node_id }) }),
);
