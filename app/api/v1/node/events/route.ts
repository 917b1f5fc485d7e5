import { z } from 'zod';
import { config } from '@/lib/config';
import { dataReply, json, route } from '@/lib/http/route';
import { statsContext } from '@/lib/http/stats-route';
import { ingestEvents } from '@/lib/stats/ingest';
import { nodeEventsBody } from '@/lib/stats/schema';

/** Ingest node events (design §5) → `{data: {accepted: N}}`; a batch is stored whole or not at all. */
export const POST = route(
  {
    auth: 'partner',
    body: nodeEventsBody,
    doc: {
      summary: 'Ingest node events: batched, idempotent on event_id, out-of-order tolerant',
      tag: 'Partner statistics',
      beyond: true,
      replies: { 200: { schema: dataReply(z.object({ accepted: z.number().int() })), description: 'How many events were new' } },
      errors: [400, 401, 413, 429],
    },
  },
  async ({ db, body, partner }) => {
    const { heartbeatTimeoutMs } = statsContext(partner);
    const retentionDays = config().TRIAD_EVENT_RETENTION_DAYS;
    return json({ data: await ingestEvents(db, { partnerId: partner.id, events: body.events, heartbeatTimeoutMs, retentionDays }) });
  },
);
