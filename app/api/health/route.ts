import { database } from '@/lib/db/client';

/** Liveness and database reachability: 200 when the database answers, 503 otherwise. */
export async function GET() {
  const started = performance.now();
  try {
    const db = await database();
    await db.ping();
    return Response.json({
      status: 'ok',
      database: { driver: db.driver, reachable: true, latency_ms: Math.round((performance.now() - started) * 10) / 10 },
    });
  } catch {
    return Response.json({ status: 'unavailable', database: { reachable: false } }, { status: 503 });
  }
}
