import type { Partner } from '@/lib/auth/credentials';
import { config } from '@/lib/config';
import { invalidParameters } from '@/lib/errors/link';
import { type StatsContext } from '@/lib/stats/queries';
import { roundRange, type Range } from '@/lib/stats/sessions';

/*
 * What the statistics routes (auth `partner` in ./route.ts: an organization token and `secret` naming
 * one of its partners) hand to lib/stats: the partner, the time, and the interface's range rules.
 */
export const statsContext = (partner: Partner): StatsContext => ({
  partnerId: partner.id,
  now: Date.now(),
  heartbeatTimeoutMs: config().TRIAD_HEARTBEAT_TIMEOUT_S * 1000,
});

/** The interface's range rules; null (total uptime) when either bound is missing. */
export function rangeOf(q: { started_at?: number; ended_at?: number }, maxMs?: number): Range | null {
  if (q.started_at === undefined || q.ended_at === undefined) return null;
  // Seconds since the epoch (a common slip: the interface takes milliseconds) read as January 1970.
  for (const [name, v] of [
    ['started_at', q.started_at],
    ['ended_at', q.ended_at],
  ] as const)
    if (v >= 1e9 && v < 1e11)
      throw invalidParameters(`${name} ${v} looks like seconds since the epoch; timestamps here are milliseconds (${v * 1000})`);
  const r = roundRange(q.started_at, q.ended_at, maxMs);
  if ('error' in r) throw invalidParameters(r.error);
  return r;
}
