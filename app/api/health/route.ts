import { database } from '@/lib/db/client';
import { json, route } from '@/lib/http/route';

/** Liveness and database reachability: 200 when the database answers, 503 otherwise; counted per client address. */
export const GET = route({ auth: 'none', db: false }, async () => {
  const started = performance.now();
  try {
    const db = await database();
    await db.ping();
    return json({
      status: 'ok',
      database: { driver: db.driver, reachable: true, latency_ms: Math.round((performance.now() - started) * 10) / 10 },
    });
  } catch {
    return json({ status: 'unavailable', database: { reachable: false } }, 503);
  }
});
