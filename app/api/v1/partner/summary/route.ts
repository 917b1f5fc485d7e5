import { json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { partnerSummary } from '@/lib/stats/queries';
import { summaryQuery } from '@/lib/stats/schema';

/** Fleet totals (beyond the interface) → `{data: {nodes, connected, total_uptime, unit_shared, usd_earned}}`. */
export const GET = route({ auth: 'partner', query: summaryQuery }, async ({ db, partner }) =>
  json({ data: await partnerSummary(db, statsContext(partner)) }),
);
