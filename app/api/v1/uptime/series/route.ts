import { rangeOf, withPartnerQuery } from '@/lib/http/stats-route';
import { uptimeSeries } from '@/lib/stats/queries';
import { seriesQuery } from '@/lib/stats/schema';
import { DAY_MS, MAX_RANGE_MS } from '@/lib/stats/sessions';

/** Uptime per hour (range ≤ 14 days) or per day (≤ 366 days) of one node, for charts (beyond the interface). */
export const GET = withPartnerQuery(seriesQuery, async ({ db, query, stats }) => {
  const range = rangeOf(query, query.bucket === 'hour' ? MAX_RANGE_MS : 366 * DAY_MS)!;
  return Response.json({ data: await uptimeSeries(db, stats, { partnerNodeId: query.partner_node_id, range, bucket: query.bucket }) });
});
