import { withPartnerQuery } from '@/lib/http/stats-route';
import { partnerSummary } from '@/lib/stats/queries';
import { summaryQuery } from '@/lib/stats/schema';

/** Fleet totals (beyond the interface) → `{data: {nodes, connected, total_uptime, unit_shared, usd_earned}}`. */
export const GET = withPartnerQuery(summaryQuery, async ({ db, stats }) => Response.json({ data: await partnerSummary(db, stats) }));
