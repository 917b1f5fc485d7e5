import { dataReply, json, route } from '@/lib/http/route';
import { rangeOf, statsContext } from '@/lib/http/stats-route';
import { uptimeSeries } from '@/lib/stats/queries';
import { seriesQuery, seriesSchema } from '@/lib/stats/schema';
import { DAY_MS, MAX_RANGE_MS } from '@/lib/stats/sessions';

/** Uptime per hour (range ≤ 14 days) or per day (≤ 366 days) of one node, for charts (beyond the interface). */
export const GET = route(
  {
    auth: 'partner',
    query: seriesQuery,
    doc: {
      summary: 'Per-hour or per-day uptime of one node, for charts',
      tag: 'Partner statistics',
      beyond: true,
      replies: { 200: { schema: dataReply(seriesSchema), description: 'Uptime per bucket' } },
      errors: [400, 401, 429],
    },
  },
  async ({ db, query, partner }) => {
    const range = rangeOf(query, query.bucket === 'hour' ? MAX_RANGE_MS : 366 * DAY_MS)!;
    return json({
      data: await uptimeSeries(db, statsContext(partner), { partnerNodeId: query.partner_node_id, range, bucket: query.bucket }),
    });
  },
);
