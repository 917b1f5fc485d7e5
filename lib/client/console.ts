'use client';

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { useSyncExternalStore } from 'react';
import type { z } from 'zod';
import type {
  apiKeyCreatedSchema,
  apiKeySchema,
  auditEntrySchema,
  organizationCreatedSchema,
  organizationSchema,
  orgTokenCreatedSchema,
  orgTokenSchema,
  orgSettingsSchema,
  nodeTunnelSchema,
  requestEntrySchema,
  partnerSchema,
  partnerSecretSchema,
  usageSeriesSchema,
} from '@/lib/console/schema';
import type { Capability } from '@/lib/chat/capabilities';
import type { providerTestSchema, providerViewSchema } from '@/lib/providers/schema';
import { request } from './api';

/* The console's calls (design §11), made with the session cookie; types from the server's schemas. */
export type ApiKey = z.infer<typeof apiKeySchema>;
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;
export type OrgToken = z.infer<typeof orgTokenSchema>;
export type OrgTokenCreated = z.infer<typeof orgTokenCreatedSchema>;
export type PartnerInfo = z.infer<typeof partnerSchema>;
export type PartnerSecret = z.infer<typeof partnerSecretSchema>;
export type NodeTunnel = z.infer<typeof nodeTunnelSchema>;
export type UsageSeries = z.infer<typeof usageSeriesSchema>;
export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type RequestEntry = z.infer<typeof requestEntrySchema>;
export type OrganizationInfo = z.infer<typeof organizationSchema>;
export type OrganizationCreated = z.infer<typeof organizationCreatedSchema>;

const data = <T>(p: Promise<{ data: T }>) => p.then((r) => r.data);
const send = <T>(method: string, path: string, body?: unknown) =>
  data(request<{ data: T }>(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));

export const listApiKeys = () => data(request<{ data: ApiKey[] }>('/api/org/api-keys'));
/** A key's budget as the console API takes it (design §17): USD per UTC day, week, month, or in total. */
export type BudgetInput = { budget_usd?: string | null; budget_period?: 'day' | 'week' | 'month' | 'total' };
export const createApiKey = (input: { name: string; rpm?: number; models?: string[] | null; expires_at?: number | null } & BudgetInput) =>
  send<ApiKeyCreated>('POST', '/api/org/api-keys', input);
export const updateApiKey = (id: string, input: { models?: string[] | null; expires_at?: number | null } & BudgetInput) =>
  send<ApiKey>('PATCH', `/api/org/api-keys/${encodeURIComponent(id)}`, input);
export const revokeApiKey = (id: string) => send('DELETE', `/api/org/api-keys/${encodeURIComponent(id)}`);

export const listOrgTokens = () => data(request<{ data: OrgToken[] }>('/api/org/tokens'));
export const createOrgToken = (input: { name: string }) => send<OrgTokenCreated>('POST', '/api/org/tokens', input);
export const revokeOrgToken = (id: string) => send('DELETE', `/api/org/tokens/${encodeURIComponent(id)}`);

export const listPartners = () => data(request<{ data: PartnerInfo[] }>('/api/org/partners'));
export const createPartner = (input: { name: string }) => send<PartnerSecret>('POST', '/api/org/partners', input);
export const rotatePartnerSecret = (id: string) => send<PartnerSecret>('POST', `/api/org/partners/${encodeURIComponent(id)}/rotate-secret`);
export const listTunnels = (partnerId: string) =>
  data(request<{ data: NodeTunnel[] }>(`/api/org/partners/${encodeURIComponent(partnerId)}/tunnels`));
export const renameNode = (partnerId: string, nodeId: string, name: string) =>
  send('PATCH', `/api/org/partners/${encodeURIComponent(partnerId)}/nodes/${encodeURIComponent(nodeId)}`, { name });
export const registerNode = (partnerId: string, input: { id: string; name?: string; ip?: string }) =>
  request<{ data: boolean }>('/api/v1/node/register', { method: 'POST', body: JSON.stringify({ ...input, partner: partnerId }) });

export type UsageGroup = UsageSeries['group_by'];
/** Usage over time: the organization's (`org`) or, for the administrator, the whole instance's. */
export function getUsage(scope: 'org' | 'instance', q: { start: number; end: number; bucket: 'hour' | 'day'; groupBy: UsageGroup }) {
  const params = new URLSearchParams({ started_at: String(q.start), ended_at: String(q.end), bucket: q.bucket, group_by: q.groupBy });
  return request<UsageSeries>(`/api/${scope}/usage?${params}`);
}

export const listAudit = (scope: 'org' | 'instance', p: { before?: number; action?: string } = {}) =>
  data(
    request<{ data: AuditEntry[] }>(
      `/api/${scope}/audit?limit=50${p.before ? `&before=${p.before}` : ''}${p.action ? `&action=${encodeURIComponent(p.action)}` : ''}`,
    ),
  );

/** The request log (design §18): a page of the organization's entries, newest first, and the cursor of the next. */
export function listRequests(q: {
  apiKeyId?: string;
  model?: string;
  endpoint?: string;
  status?: string;
  requestId?: string;
  since?: number;
  after?: string;
}) {
  const params = new URLSearchParams({ limit: '50' });
  if (q.apiKeyId) params.set('api_key_id', q.apiKeyId);
  if (q.model) params.set('model', q.model);
  if (q.endpoint) params.set('endpoint', q.endpoint);
  if (q.status) params.set('status', q.status);
  if (q.requestId) params.set('request_id', q.requestId);
  if (q.since) params.set('started_at', String(q.since));
  if (q.after) params.set('after', q.after);
  return data(request<{ data: { entries: RequestEntry[]; after: string | null } }>(`/api/org/requests?${params}`));
}

export const listOrganizations = () => data(request<{ data: OrganizationInfo[] }>('/api/instance/organizations'));
export const createOrganization = (input: { name: string }) => send<OrganizationCreated>('POST', '/api/instance/organizations', input);
export const setSuspended = (id: string, suspended: boolean) =>
  send('PATCH', `/api/instance/organizations/${encodeURIComponent(id)}`, { suspended });

/* The partner the statistics pages show: its id (not a secret) is remembered in this browser. */
const PARTNER_KEY = 'triad.partner';
const partnerListeners = new Set<() => void>();
export function choosePartner(id: string) {
  window.localStorage.setItem(PARTNER_KEY, id);
  // The view's link names it too (lib/client/url-state.ts keeps the rest of the query).
  const url = new URL(window.location.href);
  url.searchParams.set('partner', id);
  url.searchParams.delete('page');
  window.history.pushState(null, '', url);
  partnerListeners.forEach((l) => l());
}
function useChosenPartnerId(): string | null {
  return useSyncExternalStore(
    (l) => {
      partnerListeners.add(l);
      return () => partnerListeners.delete(l);
    },
    () => window.localStorage.getItem(PARTNER_KEY),
    () => null,
  );
}

/** The organization's partners and the one chosen (the remembered one, else the first). */
export function usePartner(enabled: boolean) {
  const partners = useQuery({ queryKey: ['partners'], queryFn: listPartners, enabled });
  const chosen = useChosenPartnerId();
  // A link names its partner (?partner=<id>): it shows that one, whatever this browser chose last.
  const linked = useSearchParams().get('partner');
  const list = partners.data ?? [];
  const partner = list.find((p) => p.id === linked) ?? list.find((p) => p.id === chosen) ?? list[0] ?? null;
  return { partners: list, partner, loading: enabled && partners.isPending, error: partners.error };
}

/* Providers (the administrator's): the admin API, with the session. */
export type Provider = z.infer<typeof providerViewSchema>;
export type ProviderTest = z.infer<typeof providerTestSchema>;
export type ProviderFields = {
  name?: string;
  base_url?: string;
  api_key?: string | null;
  models?: string[] | null;
  weight?: number;
  timeout_ms?: number;
  price_prompt?: string | null;
  price_completion?: string | null;
  price_per_1k?: string | null;
  enabled?: boolean;
  capabilities?: Capability[] | null;
  endpoints?: Provider['endpoints'];
};
const providerPath = (name: string) => `/api/admin/providers/${encodeURIComponent(name)}`;
export const listProviders = () => data(request<{ data: Provider[] }>('/api/admin/providers'));
export const addProvider = (fields: ProviderFields) => send<Provider>('POST', '/api/admin/providers', fields);
export const updateProvider = (name: string, fields: ProviderFields) => send<Provider>('PATCH', providerPath(name), fields);
export const removeProvider = (name: string) => send('DELETE', providerPath(name));
export const testProvider = (name: string) => send<ProviderTest>('POST', `${providerPath(name)}/test`);
/** Admits a node (or, without `partner_node_id`, its whole partner) to the network, or revokes it (design §20). */
export const setAdmission = (admit: boolean, ref: { partner_id: string; partner_node_id?: string }) =>
  send('POST', `/api/admin/nodes/${admit ? 'admit' : 'revoke'}`, ref);

export type OrgSettings = z.infer<typeof orgSettingsSchema>;
export const getOrgSettings = () => data(request<{ data: OrgSettings }>('/api/org/settings'));
export const setOrgSettings = (settings: { network_nodes?: boolean } & BudgetInput) =>
  send<OrgSettings>('PATCH', '/api/org/settings', settings);
