import { usageSeries } from '@/lib/console/usage';
import { usageQuery } from '@/lib/console/schema';
import { invalidParameters } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

const DAY = 86_400_000;

/** The organization's chat usage over time: `{data: [{bucket_start, group, label, requests, …}]}` (the last 7 days unless said). */
export const GET = route({ auth: 'orgToken', query: usageQuery }, async ({ db, org, query }) => {
  const to = query.ended_at ?? Date.now();
  const from = query.started_at ?? to - 7 * DAY;
  const most = query.bucket === 'hour' ? 31 * DAY : 400 * DAY;
  if (to - from > most) throw invalidParameters(`a range of ${query.bucket}ly buckets is at most ${most / DAY} days`);
  if (from >= to) throw invalidParameters('started_at must be before ended_at');
  const data = await usageSeries(db, {
    orgId: org.id,
    from,
    to,
    bucket: query.bucket,
    groupBy: query.group_by,
    apiKeyId: query.api_key_id,
    model: query.model,
  });
  return json({ started_at: from, ended_at: to, bucket: query.bucket, group_by: query.group_by, data });
});
