import { dataReply, json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { partnerSummary } from '@/lib/stats/queries';
import { summaryQuery, summarySchema } from '@/lib/stats/schema';

/** Fleet totals (beyond the interface) → `{data: {nodes, connected, total_uptime, unit_shared, usd_earned}}`. */
export const GET = route(
  {
    auth: 'partner',
    query: summaryQuery,
    doc: {
      summary: 'Fleet totals of a partner',
      tag: 'Partner statistics',
      beyond: true,
      replies: { 200: { schema: dataReply(summarySchema), description: 'Fleet totals' } },
      errors: [400, 401, 429],
    },
  },
  async ({ db, partner }) => json({ data: await partnerSummary(db, statsContext(partner)) }),
);
