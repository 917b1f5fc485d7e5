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
      example: {
        secret: 'pt_sec_…',
        events: [
          { partner_node_id: 'node-berlin-01', type: 'connect', at: 1795600000000, event_id: 'b01-000001', ip: '203.0.113.7' },
          { partner_node_id: 'node-berlin-01', type: 'heartbeat', at: 1795600060000, event_id: 'b01-000002' },
        ],
      },
    },
  },
  async ({ db, body, partner }) => {
    const { heartbeatTimeoutMs } = statsContext(partner);
    const retentionDays = config().TRIAD_EVENT_RETENTION_DAYS;
    return json({ data: await ingestEvents(db, { partnerId: partner.id, events: body.events, heartbeatTimeoutMs, retentionDays }) });
  },
);
