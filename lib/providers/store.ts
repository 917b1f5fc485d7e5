import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { secretBox } from '@/lib/auth/secret-box';
import type { Db } from '@/lib/db/client';
import { nodes, partners, providers } from '@/lib/db/schema';
import { exposedModels } from './catalogue';
import { per1kOf, perMillion } from './prices';
import type { ProviderCreate, ProviderUpdate, ProviderView } from './schema';

/*
 * Providers in the database (design §10). The API key is encrypted with the instance's secret key
 * and only ever decrypted to call the provider; views never carry it.
 */

export type ProviderRow = typeof providers.$inferSelect;
/**
 * A provider with the partner node it is linked to, if any: the node's organization, and whether the
 * node (or its whole partner) is admitted to the network (design §20).
 */
export type ProviderRecord = ProviderRow & {
  node: { partnerId: string; externalId: string; orgId: string; admission: Admission | null } | null;
};
/** A node's admission to the network: when, by whom (an audit actor), and whether its whole partner was admitted. */
export type Admission = { at: Date; by: string | null; partner: boolean };

export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

const columns = {
  provider: providers,
  partnerId: nodes.partnerId,
  externalId: nodes.externalId,
  orgId: partners.orgId,
  nodeAdmittedAt: nodes.admittedAt,
  nodeAdmittedBy: nodes.admittedBy,
  partnerAdmittedAt: partners.admittedAt,
  partnerAdmittedBy: partners.admittedBy,
};
type Joined = {
  provider: ProviderRow;
  partnerId: string | null;
  externalId: string | null;
  orgId: string | null;
  nodeAdmittedAt: Date | null;
  nodeAdmittedBy: string | null;
  partnerAdmittedAt: Date | null;
  partnerAdmittedBy: string | null;
};
const admissionOf = (r: Joined): Admission | null =>
  r.partnerAdmittedAt
    ? { at: r.partnerAdmittedAt, by: r.partnerAdmittedBy, partner: true }
    : r.nodeAdmittedAt
      ? { at: r.nodeAdmittedAt, by: r.nodeAdmittedBy, partner: false }
      : null;
const toRecord = (r: Joined): ProviderRecord => ({
  ...r.provider,
  node:
    r.partnerId && r.externalId && r.orgId
      ? { partnerId: r.partnerId, externalId: r.externalId, orgId: r.orgId, admission: admissionOf(r) }
      : null,
});
const joined = (db: Db) =>
  db.select(columns).from(providers).leftJoin(nodes, eq(nodes.id, providers.nodeId)).leftJoin(partners, eq(partners.id, nodes.partnerId));

export async function listProviders(db: Db): Promise<ProviderRecord[]> {
  return (await joined(db).orderBy(providers.name)).map(toRecord);
}

export async function getProvider(db: Db, name: string): Promise<ProviderRecord> {
  const [row] = await joined(db).where(eq(providers.name, name));
  if (!row) throw new ProviderError('not_found', `no provider named "${name}"`);
  return toRecord(row);
}

export async function getProviderById(db: Db, id: string): Promise<ProviderRecord | null> {
  const [row] = await joined(db).where(eq(providers.id, id));
  return row ? toRecord(row) : null;
}

/** The decrypted API key, to call the provider with. */
export function providerApiKey(row: ProviderRow): string | undefined {
  return row.apiKeyEnc ? secretBox().decrypt(row.apiKeyEnc) : undefined;
}

async function nodeIdOf(db: Db, ref: { partner_id: string; partner_node_id: string } | null | undefined) {
  if (ref === undefined) return undefined;
  if (ref === null) return null;
  const node = await db.query.nodes.findFirst({
    where: and(eq(nodes.partnerId, ref.partner_id), eq(nodes.externalId, ref.partner_node_id)),
    columns: { id: true },
  });
  if (!node) throw new ProviderError('invalid', `node: partner ${ref.partner_id} has no node "${ref.partner_node_id}"; register it first`);
  return node.id;
}

/** The prices a create or update sets: each its own field, else the `price_per_1k` shorthand (× 1 000 per million); undefined: unchanged. */
function pricesOf(input: { price_prompt?: string | null; price_completion?: string | null; price_per_1k?: string | null }) {
  const short = input.price_per_1k === undefined ? undefined : input.price_per_1k === null ? null : perMillion(input.price_per_1k);
  return {
    pricePrompt: input.price_prompt !== undefined ? input.price_prompt : short,
    priceCompletion: input.price_completion !== undefined ? input.price_completion : short,
  };
}

const encryptKey = (key: string | null | undefined) => (key === undefined ? undefined : key === null ? null : secretBox().encrypt(key));

export async function createProvider(db: Db, input: ProviderCreate): Promise<ProviderRecord> {
  const nodeId = await nodeIdOf(db, input.node);
  const [row] = await db
    .insert(providers)
    .values({
      id: `prv_${randomBytes(8).toString('hex')}`,
      name: input.name,
      baseUrl: input.base_url,
      apiKeyEnc: encryptKey(input.api_key),
      models: input.models ?? null,
      renames: input.renames ?? {},
      weight: input.weight,
      timeoutMs: input.timeout_ms,
      ...pricesOf(input),
      enabled: input.enabled,
      nodeId: nodeId ?? null,
      capabilities: input.capabilities ?? null,
      endpoints: input.endpoints ?? null,
    })
    .onConflictDoNothing({ target: providers.name })
    .returning({ id: providers.id });
  if (!row) throw new ProviderError('conflict', `a provider named "${input.name}" exists; update or remove it`);
  return getProvider(db, input.name);
}

export async function updateProvider(db: Db, name: string, patch: ProviderUpdate): Promise<ProviderRecord> {
  const current = await getProvider(db, name);
  if (current.kind === 'tunnel' && (patch.base_url !== undefined || patch.api_key !== undefined || patch.node !== undefined))
    throw new ProviderError('invalid', `"${name}" is a node's tunnel: its address, key and node are its agent's`);
  const nodeId = await nodeIdOf(db, patch.node);
  const reaches = patch.base_url !== undefined || patch.api_key !== undefined;
  const [row] = await db
    .update(providers)
    .set({
      name: patch.name,
      baseUrl: patch.base_url,
      apiKeyEnc: encryptKey(patch.api_key),
      models: patch.models,
      renames: patch.renames,
      weight: patch.weight,
      timeoutMs: patch.timeout_ms,
      ...pricesOf(patch),
      enabled: patch.enabled,
      nodeId,
      capabilities: patch.capabilities,
      endpoints: patch.endpoints,
      // Another server, or other credentials: what was known of its health and models no longer holds.
      ...(reaches ? { state: 'unknown' as const, failedProbes: 0, lastError: null, catalogue: [], catalogueAt: null } : {}),
      updatedAt: new Date(),
    })
    .where(eq(providers.id, current.id))
    .returning({ name: providers.name })
    .catch((e: { code?: string; cause?: { code?: string } }) => {
      if ((e.code ?? e.cause?.code) === '23505') throw new ProviderError('conflict', `a provider named "${patch.name}" exists`);
      throw e;
    });
  return getProvider(db, row!.name);
}

export async function removeProvider(db: Db, name: string): Promise<ProviderRecord> {
  const current = await getProvider(db, name);
  await db.delete(providers).where(eq(providers.id, current.id));
  return current;
}

/**
 * TRIAD_UPSTREAM_URL (and its key and timeout) as the provider `default`, created or brought up to
 * date at start; its other settings (weight, price, link) are left as an administrator made them.
 */
export async function ensureDefaultProvider(db: Db, upstream: { url: string; apiKey?: string; timeoutMs: number }) {
  const existing = await db.query.providers.findFirst({ where: eq(providers.name, 'default') });
  const url = upstream.url.replace(/\/+$/, '');
  if (!existing) {
    return createProvider(db, {
      name: 'default',
      base_url: url,
      api_key: upstream.apiKey,
      weight: 1,
      timeout_ms: upstream.timeoutMs,
      enabled: true,
    });
  }
  const keyChanged = (existing.apiKeyEnc ? secretBox().decrypt(existing.apiKeyEnc) : undefined) !== upstream.apiKey;
  if (existing.baseUrl !== url || keyChanged || existing.timeoutMs !== upstream.timeoutMs) {
    return updateProvider(db, 'default', { base_url: url, api_key: upstream.apiKey ?? null, timeout_ms: upstream.timeoutMs });
  }
  return getProvider(db, 'default');
}

export function providerView(p: ProviderRecord): ProviderView {
  return {
    id: p.id,
    name: p.name,
    kind: p.kind,
    base_url: p.baseUrl,
    has_api_key: p.apiKeyEnc !== null,
    models: p.models,
    renames: p.renames,
    weight: p.weight,
    timeout_ms: p.timeoutMs,
    price_prompt: p.pricePrompt,
    price_completion: p.priceCompletion,
    price_per_1k: per1kOf({ prompt: p.pricePrompt, completion: p.priceCompletion }),
    enabled: p.enabled,
    node: p.node ? { partner_id: p.node.partnerId, partner_node_id: p.node.externalId } : null,
    tenancy: tenancyView(p),
    capabilities: (p.capabilities as ProviderView['capabilities']) ?? null,
    endpoints: (p.endpoints as ProviderView['endpoints']) ?? null,
    health: {
      state: p.state,
      last_error: p.lastError,
      latency_ms: p.latencyMs,
      checked_at: p.checkedAt?.toISOString() ?? null,
    },
    serves: [...exposedModels(p.catalogue, p.models, p.renames).keys()].sort(),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** Whom a provider serves (design §20): every organization (null), or a node's own organization, or the network once admitted. */
function tenancyView(p: ProviderRecord): ProviderView['tenancy'] {
  if (p.kind !== 'tunnel') return null;
  const a = p.node?.admission ?? null;
  return {
    org_id: p.node?.orgId ?? null,
    network: a ? 'admitted' : 'private',
    admitted_at: a?.at.toISOString() ?? null,
    admitted_by: a?.by ?? null,
    admitted_as: a ? (a.partner ? 'partner' : 'node') : null,
  };
}
