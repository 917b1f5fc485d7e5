import { and, eq, isNotNull, isNull, or } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { nodes, partners, providers } from '@/lib/db/schema';
import type { Budget } from '@/lib/budgets/budgets';
import type { Preferences } from './preferences';
import type { ProviderRecord } from './store';

/*
 * Node tenancy (design §20): who a provider may serve. A provider the administrator added by URL
 * serves every organization. A node's tunnel serves its own organization only (a private node), until
 * an instance administrator admits the node, or its whole partner, to the network; an admitted node
 * then serves every organization that has not refused network nodes. A tunnel whose node is gone
 * serves no one.
 */

/**
 * Whose completion is being routed: its organization, whether that organization takes network nodes,
 * and, from its key, the models it may use (null or absent: all; design §17).
 */
export type Tenant = {
  orgId: string;
  networkNodes: boolean;
  models?: string[] | null;
  budgets?: Budget[];
  preferences?: Preferences | null;
};

/** `own`: the administrator's provider or the tenant's own node; `network`: another organization's admitted node. */
export type Reach = 'own' | 'network' | null;

export function reachOf(r: { kind: string; node: ProviderRecord['node'] }, tenant: Tenant): Reach {
  if (r.kind !== 'tunnel') return 'own';
  if (!r.node) return null;
  if (r.node.orgId === tenant.orgId) return 'own';
  return r.node.admission && tenant.networkNodes ? 'network' : null;
}

/**
 * Whether a tunnel's node is admitted now, read from the database: the pool's copy may be up to its
 * reload interval old on another instance, and a revocation takes effect for the next request.
 */
export async function admittedNow(db: Db, providerId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: providers.id })
    .from(providers)
    .innerJoin(nodes, eq(nodes.id, providers.nodeId))
    .innerJoin(partners, eq(partners.id, nodes.partnerId))
    .where(and(eq(providers.id, providerId), or(isNotNull(nodes.admittedAt), isNotNull(partners.admittedAt)), isNull(partners.revokedAt)))
    .limit(1);
  return !!row;
}
