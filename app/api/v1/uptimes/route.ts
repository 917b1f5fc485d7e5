import { z } from 'zod';
import { dataReply, json, route } from '@/lib/http/route';
import { rangeOf, statsContext } from '@/lib/http/stats-route';
import { uptimes } from '@/lib/stats/queries';
import { uptimeSchema, uptimesQuery } from '@/lib/stats/schema';

/** Uptime of up to 5 nodes (public reference; design §7) → `{data: [{uptime, partner_node_id}, …]}`. */
export const GET = route(
  {
    auth: 'partner',
    query: uptimesQuery,
    doc: {
      summary: 'Uptime of up to 5 nodes',
      tag: 'Partner statistics',
      replies: { 200: { schema: dataReply(z.array(uptimeSchema)), description: 'One uptime per node, in order' } },
      errors: [400, 401, 429],
      repeated: ['partner_node_id'],
    },
  },
  async ({ db, query, partner }) =>
    json({ data: await uptimes(db, statsContext(partner), { partnerNodeIds: query.partner_node_id, range: rangeOf(query) }) }),
);
