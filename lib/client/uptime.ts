import type { Series } from '@/lib/stats/schema';

/*
 * Uptime as a person reads it (design §19): a share of the time that has passed. An hour still under
 * way counts only its elapsed part, and hours not begun are not shown at all — so a node connected the
 * whole range reads 100 %, not less because the current hour is unfinished. `measured_at` is the
 * server's own "now" for the figures, so the shares agree with the API's milliseconds exactly.
 */
export type MeasuredPoint = Series['points'][number] & {
  /** The part of the bucket that had passed when it was measured (ms). */
  elapsed: number;
  /** uptime / elapsed, 0–1. */
  share: number;
};

export function measure(s: Series): { points: MeasuredPoint[]; uptime: number; elapsed: number; percent: number } {
  const now = s.measured_at;
  const points: MeasuredPoint[] = [];
  let uptime = 0;
  for (const p of s.points) {
    if (p.start >= now) break; // not begun
    const elapsed = Math.min(s.bucket_ms, now - p.start);
    points.push({ ...p, elapsed, share: Math.min(1, p.uptime / elapsed) });
    uptime += p.uptime;
  }
  const elapsed = Math.max(0, Math.min(s.ended_at, now) - s.started_at);
  return { points, uptime, elapsed, percent: elapsed > 0 ? Math.min(100, (100 * uptime) / elapsed) : 0 };
}
