import type { z } from 'zod';
import { findPartnerBySecret, type Organization, type Partner } from '@/lib/auth/credentials';
import { config } from '@/lib/config';
import type { Db } from '@/lib/db/client';
import { invalidParameters, unauthorized } from '@/lib/errors/link';
import { type StatsContext } from '@/lib/stats/queries';
import { roundRange, type Range } from '@/lib/stats/sessions';
import { type LinkContext, withOrgToken } from './link-route';
import { parseWith, queryObject } from './validation';

/*
 * The statistics group's route wrapper: an organization token (else 401), the query parsed with
 * its schema (else 400 INVALID_PARAMETERS), and `secret` naming a partner of that organization
 * (else 401). Nothing of another organization or partner can be reached past it.
 */
export type { StatsContext };

export async function requirePartner(db: Db, org: Organization, secret: string): Promise<Partner> {
  const partner = await findPartnerBySecret(db, { orgId: org.id, secret });
  if (!partner) throw unauthorized('the partner secret names no partner of this organization');
  return partner;
}

export const statsContext = (partner: Partner): StatsContext => ({
  partnerId: partner.id,
  now: Date.now(),
  heartbeatTimeoutMs: config().TRIAD_HEARTBEAT_TIMEOUT_S * 1000,
});

export function withPartnerQuery<S extends z.ZodType<{ secret: string }>>(
  schema: S,
  handler: (ctx: LinkContext<Record<string, never>> & { org: Organization; query: z.output<S>; stats: StatsContext }) => Promise<Response>,
) {
  return withOrgToken(async (ctx) => {
    const query = parseWith(schema, queryObject(ctx.request.url));
    const partner = await requirePartner(ctx.db, ctx.org, query.secret);
    return handler({ ...ctx, query, stats: statsContext(partner) });
  });
}

/** The interface's range rules; null (total uptime) when either bound is missing. */
export function rangeOf(q: { started_at?: number; ended_at?: number }, maxMs?: number): Range | null {
  if (q.started_at === undefined || q.ended_at === undefined) return null;
  const r = roundRange(q.started_at, q.ended_at, maxMs);
  if ('error' in r) throw invalidParameters(r.error);
  return r;
}
