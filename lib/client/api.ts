/**
 * The dashboard's one typed client of Triad's public API. Components call these through
 * TanStack Query hooks; they never call fetch themselves.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
  /** What a person should read. */
  get explanation(): string {
    return this.detail ? `${this.message}: ${this.detail}` : this.message;
  }
}

type ErrorBody = { error?: { message?: string; detail?: string; status?: number } | string };

export async function request<T>(path: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const { token, headers, ...rest } = init;
  let res: Response;
  try {
    res = await fetch(path, {
      ...rest,
      headers: {
        ...(rest.body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
    });
  } catch {
    throw new ApiError(0, 'Triad could not be reached', 'check that the server is running');
  }
  const body = (await res.json().catch(() => null)) as (T & ErrorBody) | null;
  if (!res.ok) {
    const err = body?.error;
    if (typeof err === 'string') throw new ApiError(res.status, err);
    throw new ApiError(res.status, err?.message ?? `HTTP ${res.status}`, err?.detail);
  }
  return body as T;
}

export type Health = { status: string; database: { driver?: string; reachable: boolean; latency_ms?: number } };
export const getHealth = () => request<Health>('/api/health');

export type CredentialsVerdict = {
  org_token?: { valid: boolean; organization?: string };
  api_key?: { valid: boolean; organization?: string };
  partner_secret?: { valid: boolean; partner?: string };
};
export const checkCredentials = (input: { org_token?: string; api_key?: string; partner_secret?: string }) =>
  request<{ data: CredentialsVerdict }>('/api/credentials/check', { method: 'POST', body: JSON.stringify(input) }).then((r) => r.data);

export type DemoCredentials = { org_token: string; api_key: string; partner_secret: string; partner_node_ids: string[] };
export const getDemoCredentials = () => request<{ data: DemoCredentials }>('/api/demo/credentials').then((r) => r.data);
