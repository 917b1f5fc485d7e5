import { config } from '@/lib/config';
import { unauthorized } from '@/lib/errors/link';
import { route } from '@/lib/http/route';
import { renderMetrics } from '@/lib/metrics';

/** Prometheus metrics: to this machine (see localRoutesEnabled), or to anyone with `Authorization: Bearer $TRIAD_METRICS_TOKEN` when that is set. */
export const GET = route(
  {
    auth: 'local',
    localToken: () => config().TRIAD_METRICS_TOKEN,
    localRefusal: () => unauthorized('metrics are served to this machine, or with TRIAD_METRICS_TOKEN'),
    db: false,
    doc: {
      summary: 'Prometheus metrics (this machine under a Host naming it, or Bearer TRIAD_METRICS_TOKEN)',
      tag: 'Operations',
      beyond: true,
      replies: { 200: { description: 'text/plain; version=0.0.4' } },
      errors: [401, 403],
    },
  },
  async () => ({
    status: 200,
    headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' },
    text: renderMetrics(),
  }),
);
