import { readDemo } from '@/lib/admin/demo';
import { config } from '@/lib/config';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** In demo mode, a browser on this machine may fetch the demo credentials to fill the panel (see localRoutesEnabled). */
export const GET = route(
  {
    auth: 'local',
    localRefusal: (detail) => notFound(`demo credentials are ${detail}`),
    doc: {
      summary: 'The demo credentials, to a browser on this machine in demo mode',
      tag: 'Operations',
      beyond: true,
      replies: { 200: { description: '{data: {org_token, api_key, partner_secret, partner_node_ids}}' } },
      errors: [403, 404, 429],
    },
  },
  async ({ db }) => {
    if (!config().TRIAD_DEMO) throw notFound('demo credentials are offered in demo mode only (TRIAD_DEMO)');
    const demo = await readDemo(db);
    if (!demo) throw notFound('the demo has not been set up (npm run admin -- demo)');
    const { org_token, api_key, partner_secret, partner_node_ids } = demo;
    return json({ data: { org_token, api_key, partner_secret, partner_node_ids } });
  },
);
