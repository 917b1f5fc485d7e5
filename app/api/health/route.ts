import { database } from '@/lib/db/client';
import { json, route } from '@/lib/http/route';
import { rateLimitStore } from '@/lib/rate-limit';

/**
 * Liveness, database reachability and where rate limits are counted: 200 when the database answers,
 * 503 otherwise. Redis being away is reported (`rate_limits.store: "memory-fallback"`) but is no 503:
 * every request is still served, on each instance's own limits. Counted per client address.
 */
export const GET = route(
  {
    auth: 'none',
    db: false,
    doc: {
      summary: 'Liveness, database reachability and where rate limits are counted',
      tag: 'Operations',
      beyond: true,
      replies: {
        200: {
          description:
            '{status, database: {driver, reachable, latency_ms}, rate_limits: {store: "memory" | "redis" | "memory-fallback"}}; 503 when the database does not answer (Redis away is reported as memory-fallback, not a 503)',
        },
      },
      errors: [503],
    },
  },
  async () => {
    const started = performance.now();
    const rateLimits = { store: await rateLimitStore() };
    try {
      const db = await database();
      await db.ping();
      return json({
        status: 'ok',
        database: { driver: db.driver, reachable: true, latency_ms: Math.round((performance.now() - started) * 10) / 10 },
        rate_limits: rateLimits,
      });
    } catch {
      return json({ status: 'unavailable', database: { reachable: false }, rate_limits: rateLimits }, 503);
    }
  },
);
