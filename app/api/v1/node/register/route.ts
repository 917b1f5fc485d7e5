import { z } from 'zod';
import { dataReply, json, route } from '@/lib/http/route';
import { registerNode } from '@/lib/stats/nodes';
import { registerNodeBody } from '@/lib/stats/schema';

/** Register a node (public reference's call shape; design §5) → `{data: true}`. Idempotent. */
export const POST = route(
  {
    auth: 'partner',
    body: registerNodeBody,
    doc: {
      summary: 'Register a node (idempotent)',
      tag: 'Partner statistics',
      beyond: true,
      replies: { 200: { schema: dataReply(z.literal(true)), description: 'Registered' } },
      errors: [400, 401, 429],
      example: { id: 'node-berlin-01', secret: 'pt_sec_…', name: 'Berlin 01', ip: '203.0.113.7' },
    },
  },
  async ({ db, body, partner }) => {
    await registerNode(db, { partnerId: partner.id, externalId: body.id, name: body.name, ip: body.ip });
    return json({ data: true });
  },
);
