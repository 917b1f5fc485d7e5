import { decodeCursor } from '@/lib/core/cursor';
import { requestLogSchema, requestsQuery } from '@/lib/console/schema';
import { json, route } from '@/lib/http/route';
import { listRequests, REQUESTS_CURSOR } from '@/lib/observability/request-log';

/** The organization's request log (design §18), newest first, in cursor pages (`after`). */
export const GET = route(
  {
    auth: 'orgToken',
    query: requestsQuery,
    doc: {
      summary: "The organization's request log: each completion and embedding, newest first",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: requestLogSchema, description: 'A page of entries; the next with after=<after>, null at the end' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, query }) =>
    json({
      data: await listRequests(db, {
        orgId: org.id,
        apiKeyId: query.api_key_id,
        model: query.model,
        endpoint: query.endpoint,
        status: query.status,
        requestId: query.request_id,
        startedAt: query.started_at,
        endedAt: query.ended_at,
        after: query.after === undefined ? undefined : decodeCursor(REQUESTS_CURSOR, query.after),
        limit: query.limit,
      }),
    }),
);
