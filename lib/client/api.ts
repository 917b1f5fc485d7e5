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

/**
 * The console session's CSRF token (design §11), sent with every call that changes something. It is
 * kept in this page's memory only: the session itself is an HttpOnly cookie that scripts never see.
 */
let csrfToken = '';
export function setCsrfToken(token: string) {
  csrfToken = token;
}
/** The headers a cookie-authenticated call that changes something needs. */
export const csrfHeaders = (): Record<string, string> => (csrfToken ? { 'x-csrf-token': csrfToken } : {});

export async function request<T>(path: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const { token, headers, ...rest } = init;
  const changes = !!rest.method && !['GET', 'HEAD'].includes(rest.method.toUpperCase());
  let res: Response;
  try {
    res = await fetch(path, {
      ...rest,
      headers: {
        ...(rest.body ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : changes ? csrfHeaders() : {}),
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

export type DemoCredentials = { org_token: string; api_key: string; partner_secret: string; partner_node_ids: string[] };
export const getDemoCredentials = () => request<{ data: DemoCredentials }>('/api/demo/credentials').then((r) => r.data);
