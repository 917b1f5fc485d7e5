import { usageQuery, usageSeriesSchema } from '@/lib/console/schema';
import { usageRange, usageSeries } from '@/lib/console/usage';
import { json, route } from '@/lib/http/route';

/** The organization's chat usage over time: `{data: [{bucket_start, group, label, requests, …}]}` (the last 7 days unless said). */
export const GET = route(
  {
    auth: 'orgToken',
    query: usageQuery,
    doc: {
      summary: 'Chat usage over time: per key or model, hourly or daily; requests, tokens, errors, latency and TTFT percentiles',
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: usageSeriesSchema, description: 'One point per bucket and group that had usage' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, query }) => {
    const { from, to } = usageRange(query);
    const { bucket, group_by, api_key_id, model } = query;
    const data = await usageSeries(db, { orgId: org.id, from, to, bucket, groupBy: group_by, apiKeyId: api_key_id, model });
    return json({ started_at: from, ended_at: to, bucket, group_by, data });
  },
);
