import { dataReply, json, route } from '@/lib/http/route';
import { rangeOf, statsContext } from '@/lib/http/stats-route';
import { uptimes } from '@/lib/stats/queries';
import { uptimeQuery, uptimeSchema } from '@/lib/stats/schema';

/** Get node uptime (interface 4.3) → `{data: {uptime, partner_node_id}}`; total uptime without a full range. */
export const GET = route(
  {
    auth: 'partner',
    query: uptimeQuery,
    doc: {
      summary: 'Uptime of one node (total without a full range; bounds rounded down to the hour; ≤ 14 days)',
      tag: 'Partner statistics',
      replies: { 200: { schema: dataReply(uptimeSchema), description: 'Uptime in milliseconds' } },
      errors: [400, 401, 429],
    },
  },
  async ({ db, query, partner }) => {
    const [data] = await uptimes(db, statsContext(partner), { partnerNodeIds: [query.partner_node_id], range: rangeOf(query) });
    return json({ data });
  },
);
