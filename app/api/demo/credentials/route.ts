import { readDemo } from '@/lib/admin/demo';
import { config } from '@/lib/config';
import { notFound } from '@/lib/errors/link';
import { linkRoute } from '@/lib/http/link-route';
import { isLoopbackPeer, requireLocalHost } from '@/lib/http/peer';

/** In demo mode, a browser on this machine may fetch the demo credentials to fill the panel. */
export const GET = linkRoute(async ({ request, db }) => {
  requireLocalHost(request);
  if (!config().TRIAD_DEMO || !isLoopbackPeer(request)) throw notFound('demo credentials are offered to this machine only, in demo mode');
  const demo = await readDemo(db);
  if (!demo) throw notFound('the demo has not been set up (npm run admin -- demo)');
  const { org_token, api_key, partner_secret, partner_node_ids } = demo;
  return Response.json({ data: { org_token, api_key, partner_secret, partner_node_ids } }, { headers: { 'Cache-Control': 'no-store' } });
});
