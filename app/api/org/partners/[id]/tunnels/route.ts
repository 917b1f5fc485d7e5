import { idParams } from '@/lib/core/input';
import { z } from 'zod';
import { nodeTunnelSchema } from '@/lib/console/schema';
import { partnerTunnels } from '@/lib/console/tunnels';
import { notFound } from '@/lib/errors/link';
import { dataReply, json, route } from '@/lib/http/route';

/** The partner's nodes that dial in: their tunnels' state, models, requests in flight, completions today. */
export const GET = route(
  {
    auth: 'orgToken',
    params: idParams,
    doc: {
      summary: "A partner's node tunnels (node agents): state, models, in flight, served today",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(nodeTunnelSchema)), description: 'By partner_node_id' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, params }) => {
    const tunnels = await partnerTunnels(db, org.id, params.id);
    if (!tunnels) throw notFound('no partner of this organization has that id');
    return json({ data: tunnels });
  },
);
