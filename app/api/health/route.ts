import { database } from '@/lib/db/client';
import { addressRate } from '@/lib/http/link-route';

/** Liveness and database reachability: 200 when the database answers, 503 otherwise; counted per client address. */
export async function GET(request: Request) {
  const rate = await addressRate(request);
  if ('refused' in rate) return rate.refused;
  const started = performance.now();
  try {
    const db = await database();
    await db.ping();
    return Response.json(
      {
        status: 'ok',
        database: { driver: db.driver, reachable: true, latency_ms: Math.round((performance.now() - started) * 10) / 10 },
      },
      { headers: rate.headers },
    );
  } catch {
    return Response.json({ status: 'unavailable', database: { reachable: false } }, { status: 503, headers: rate.headers });
  }
}
