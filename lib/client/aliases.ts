import type { AliasPage, AliasType, AliasWire, CreateAliasInput, UpdateAliasInput } from '@/lib/aliases/schema';

export type { AliasPage };
import { ApiError, request } from './api';

const BASE = '/organization/api/v1';

export function listAliases(token: string, { type, q, after }: { type?: AliasType; q?: string; after?: string | null }) {
  const params = new URLSearchParams();
  if (type) params.set('type', type);
  if (q) params.set('q', q);
  if (after) params.set('after', after);
  params.set('limit', '20');
  return request<AliasPage>(`${BASE}/aliases?${params}`, { token });
}

export const createAlias = (token: string, input: CreateAliasInput) =>
  request<{ data: AliasWire }>(`${BASE}/alias/create`, { method: 'POST', token, body: JSON.stringify(input) }).then((r) => r.data);

export const updateAlias = (token: string, id: string, input: UpdateAliasInput) =>
  request<{ data: AliasWire }>(`${BASE}/alias/update/${encodeURIComponent(id)}`, {
    method: 'POST',
    token,
    body: JSON.stringify(input),
  }).then((r) => r.data);

export const deleteAlias = (token: string, id: string) =>
  request<{ message: string }>(`${BASE}/alias/delete/${encodeURIComponent(id)}`, { method: 'DELETE', token });

/** Retrieve by id as any client would: with a JWT, a passcode, or nothing. Returns status and body as received. */
export async function tryRetrieveAlias(id: string, { jwt, passcode }: { jwt?: string; passcode?: string }) {
  const query = passcode ? `?passcode=${encodeURIComponent(passcode)}` : '';
  try {
    const body = await request<{ data: AliasWire }>(`${BASE}/alias/${encodeURIComponent(id)}${query}`, { token: jwt });
    return { status: 200, body: body as unknown };
  } catch (e) {
    if (e instanceof ApiError)
      return {
        status: e.status,
        body: { error: { message: e.message, status: e.status, ...(e.detail ? { detail: e.detail } : {}) } } as unknown,
      };
    throw e;
  }
}
