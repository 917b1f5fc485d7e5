import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { nodes, nodeServedHourly, partners, providers } from '@/lib/db/schema';
import { heldTunnels } from '@/lib/providers/tunnel-client';
import type { NodeTunnel } from './schema';

/**
 * The tunnels of a partner of the organization (design §18), for the Partners page: each node that
 * ever dialled in, its provider's state, and, while its agent is connected to this instance, since
 * when, its models and requests in flight; completions served since midnight (UTC). Null when the
 * organization has no such partner.
 */
export async function partnerTunnels(db: Db, orgId: string, partnerId: string): Promise<NodeTunnel[] | null> {
  const owned = await db.query.partners.findFirst({
    where: and(eq(partners.id, partnerId), eq(partners.orgId, orgId)),
    columns: { id: true },
  });
  if (!owned) return null;
  const midnight = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const rows = await db
    .select({
      id: providers.id,
      name: providers.name,
      state: providers.state,
      catalogue: providers.catalogue,
      externalId: nodes.externalId,
      servedToday: sql<number>`coalesce((select sum(${nodeServedHourly.requests}) from ${nodeServedHourly}
        where ${nodeServedHourly.nodeId} = ${nodes.id} and ${gte(nodeServedHourly.hourStart, midnight)}), 0)::int`,
    })
    .from(providers)
    .innerJoin(nodes, eq(nodes.id, providers.nodeId))
    .where(and(eq(providers.kind, 'tunnel'), eq(nodes.partnerId, partnerId)))
    .orderBy(nodes.externalId);
  const live = new Map(heldTunnels().map((t) => [t.providerId, t]));
  return rows.map((r) => {
    const t = live.get(r.id);
    return {
      partner_node_id: r.externalId,
      provider: r.name,
      state: r.state,
      connected_since: t && !t.closed ? new Date(t.connectedAt).toISOString() : null,
      models: t && !t.closed ? t.models : r.catalogue,
      in_flight: t && !t.closed ? t.channels.size : 0,
      served_today: r.servedToday,
    };
  });
}
