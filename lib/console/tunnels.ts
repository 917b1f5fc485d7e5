import { and, eq, gte, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { nodes, nodeServedHourly, nodeSessions, partners, providers } from '@/lib/db/schema';
import { heldTunnels } from '@/lib/tunnel/registry';
import { networkOf } from '@/lib/stats/queries';
import type { NodeTunnel } from './schema';

/**
 * The tunnels of a partner of the organization (design §14), for the Partners page: each node that
 * ever dialled in, its provider's state, since when its agent is connected, its models, requests in
 * flight (those this instance carries: on a cluster, the holder's), completions served since midnight
 * (UTC), and whether it is private (serves this organization only) or admitted to the network
 * (design §20). Null when the organization has no such partner.
 */
export async function partnerTunnels(db: Db, orgId: string, partnerId: string): Promise<NodeTunnel[] | null> {
  const owned = await db.query.partners.findFirst({
    where: and(eq(partners.id, partnerId), eq(partners.orgId, orgId)),
    columns: { id: true, admittedAt: true },
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
      admittedAt: nodes.admittedAt,
      // The node's open session (its connect event): known to every instance, the tunnel held here or not.
      sessionSince: sql<number | null>`(select max(${nodeSessions.connectedAt}) from ${nodeSessions}
        where ${nodeSessions.nodeId} = ${nodes.id} and ${nodeSessions.disconnectedAt} is null)`,
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
    const here = !!t && !t.closed;
    // Held here: since its hello; held by another instance: since the node's connect.
    const since = here ? t.connectedAt : r.state === 'up' && r.sessionSince !== null ? Number(r.sessionSince) : null;
    return {
      partner_node_id: r.externalId,
      provider: r.name,
      state: r.state,
      connected_since: since === null ? null : new Date(since).toISOString(),
      models: here ? t.models : r.catalogue,
      in_flight: here ? t.channels.size : 0,
      served_today: r.servedToday,
      network: networkOf(owned.admittedAt, r.admittedAt),
    };
  });
}
