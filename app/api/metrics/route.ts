import { safeEqual, bearerToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { unauthorized } from '@/lib/errors/link';
import { linkRoute } from '@/lib/http/link-route';
import { isLoopbackPeer, localRoutesEnabled, requireLocalHost } from '@/lib/http/peer';
import { renderMetrics } from '@/lib/metrics.mjs';

/** Prometheus metrics: to this machine (see localRoutesEnabled), or to anyone with `Authorization: Bearer $TRIAD_METRICS_TOKEN` when that is set. */
export const GET = linkRoute(async ({ request }) => {
  const token = config().TRIAD_METRICS_TOKEN;
  const given = bearerToken(request.headers.get('authorization'));
  if (!(token && given && safeEqual(given, token))) {
    requireLocalHost(request);
    if (!localRoutesEnabled() || !isLoopbackPeer(request))
      throw unauthorized('metrics are served to this machine, or with TRIAD_METRICS_TOKEN');
  }
  return new Response(renderMetrics(), {
    headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8', 'Cache-Control': 'no-store' },
  });
});
