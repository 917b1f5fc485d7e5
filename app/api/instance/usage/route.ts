import { usageQuery, usageSeriesSchema } from '@/lib/console/schema';
import { usageRange, usageSeries } from '@/lib/console/usage';
import { json, route } from '@/lib/http/route';

/** The whole instance's chat usage over time, per organization (the default here), key or model. */
export const GET = route(
  {
    auth: 'instance',
    query: usageQuery,
    doc: {
      summary: 'Chat usage of the whole instance over time: per organization (the default), key or model',
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: usageSeriesSchema, description: 'One point per bucket and group that had usage' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, query, request }) => {
    const { from, to } = usageRange(query);
    const { bucket, api_key_id, model } = query;
    // Per organization unless the caller asked for another grouping.
    const group_by = new URL(request.url).searchParams.has('group_by') ? query.group_by : 'organization';
    const data = await usageSeries(db, { orgId: null, from, to, bucket, groupBy: group_by, apiKeyId: api_key_id, model });
    return json({ started_at: from, ended_at: to, bucket, group_by, data });
  },
);
