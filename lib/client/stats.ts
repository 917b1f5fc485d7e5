import type { NodePage, NodeStatus, Series, Statement, Summary } from '@/lib/stats/schema';

export type { NodePage, Series, Statement, Summary };
import { request } from './api';

/**
 * The statistics group, as the dashboard calls it: with the console session's cookie, naming the
 * partner by its id (`partner`), which a session may do instead of sending the partner's secret.
 */
export type StatsAuth = { partnerId: string };

function get<T>(auth: StatsAuth, path: string, params: Record<string, string | number | undefined> = {}) {
  const q = new URLSearchParams({ partner: auth.partnerId });
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  return request<{ data: T }>(`/api/v1${path}?${q}`).then((r) => r.data);
}

export const getSummary = (auth: StatsAuth) => get<Summary>(auth, '/partner/summary');

export const listNodes = (auth: StatsAuth, params: { after?: string | null; limit?: number; partnerNodeId?: string } = {}) =>
  get<NodePage>(auth, '/partner/nodes', { after: params.after ?? undefined, limit: params.limit, partner_node_id: params.partnerNodeId });

export const getDetail = (auth: StatsAuth, partnerNodeId: string) =>
  get<NodeStatus>(auth, '/partner/detail', { partner_node_id: partnerNodeId });

/** A node's earnings statement per UTC day or month (design §17): over a range, or its whole history without one. */
export const getStatement = (auth: StatsAuth, p: { partnerNodeId: string; bucket: 'day' | 'month'; start?: number; end?: number }) =>
  get<Statement>(auth, '/partner/earnings', { partner_node_id: p.partnerNodeId, bucket: p.bucket, started_at: p.start, ended_at: p.end });

export const getSeries = (auth: StatsAuth, p: { partnerNodeId: string; start: number; end: number; bucket: 'hour' | 'day' }) =>
  get<Series>(auth, '/uptime/series', { partner_node_id: p.partnerNodeId, started_at: p.start, ended_at: p.end, bucket: p.bucket });
