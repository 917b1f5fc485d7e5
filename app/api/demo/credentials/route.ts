import { readDemo } from '@/lib/admin/demo';
import { config } from '@/lib/config';
import { notFound } from '@/lib/errors/link';
import { linkRoute } from '@/lib/http/link-route';
import { isLoopbackPeer, localRoutesEnabled, requireLocalHost } from '@/lib/http/peer';

/** In demo mode, a browser on this machine may fetch the demo credentials to fill the panel (see localRoutesEnabled). */
export const GET = linkRoute(
  async ({ request, db }) => {
    requireLocalHost(request);
    if (!config().TRIAD_DEMO || !localRoutesEnabled() || !isLoopbackPeer(request)) {
      throw notFound(
        'demo credentials are offered to this machine only, in demo mode, while the server listens on loopback (TRIAD_LOCAL_ROUTES)',
      );
    }
    const demo = await readDemo(db);
    if (!demo) throw notFound('the demo has not been set up (npm run admin -- demo)');
    const { org_token, api_key, partner_secret, partner_node_ids } = demo;
    return Response.json({ data: { org_token, api_key, partner_secret, partner_node_ids } }, { headers: { 'Cache-Control': 'no-store' } });
  },
  { perAddress: true },
);
