'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useSyncExternalStore } from 'react';
import type { z } from 'zod';
import type { sessionSchema } from '@/lib/console/schema';
import { ApiError, request, setCsrfToken } from './api';

/*
 * The console session (design §11): signing in exchanges a token for an HttpOnly cookie; the page
 * keeps only the session's CSRF token, in memory. Nothing secret is kept in the browser's storage.
 */
export type SessionInfo = z.infer<typeof sessionSchema>;
export const SESSION_KEY = ['session'] as const;

async function fetchSession(): Promise<SessionInfo | null> {
  try {
    // Nobody signed in is `{data: null}` (200), so a first visit shows no failed request.
    const { data } = await request<{ data: SessionInfo | null }>('/api/session');
    setCsrfToken(data?.csrf_token ?? '');
    return data;
  } catch (e) {
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
      setCsrfToken('');
      return null;
    }
    throw e;
  }
}

/** Who is signed in (null: nobody); `loading` until the server has said. */
export function useSession() {
  const q = useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000, retry: false });
  // The page's server HTML was rendered "loading". A part hydrated after the session's answer came
  // (the page below the shell's Suspense boundary) must render that too, or React discards it as a
  // mismatch; it shows the answer in the render right after.
  const hydrated = useHydrated();
  if (!hydrated) return { session: null, loading: true };
  return { session: q.data ?? null, loading: q.isPending };
}

const noSubscription = () => () => {};
/** False while React hydrates the server's HTML (its server snapshot), true in every render after. */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

export async function signIn(token: string): Promise<SessionInfo> {
  const { data } = await request<{ data: SessionInfo }>('/api/session', { method: 'POST', body: JSON.stringify({ token: token.trim() }) });
  setCsrfToken(data.csrf_token);
  return data;
}

export async function signOut(everywhere = false): Promise<void> {
  await request(everywhere ? '/api/session/end-all' : '/api/session', { method: everywhere ? 'POST' : 'DELETE' });
  setCsrfToken('');
}

/** After signing in or out: every query is asked again under the new session. */
export function useSessionChanged() {
  const client = useQueryClient();
  return useCallback(async () => {
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== 'session' });
    await client.invalidateQueries({ queryKey: SESSION_KEY });
  }, [client]);
}

/** Where earlier versions kept the tokens a person pasted (readable by any script on the page). */
const LEGACY_KEY = 'triad.credentials';

/**
 * Moves tokens an earlier version kept in localStorage away: the org token, if any, signs in (when
 * nobody is), and the stored item is removed whatever happens. True when something was found.
 */
export async function migrateStoredCredentials(signedIn: boolean): Promise<'none' | 'signed-in' | 'removed'> {
  const raw = window.localStorage.getItem(LEGACY_KEY);
  if (raw === null) return 'none';
  window.localStorage.removeItem(LEGACY_KEY);
  let orgToken = '';
  try {
    const parsed = JSON.parse(raw) as { orgToken?: unknown };
    if (typeof parsed.orgToken === 'string') orgToken = parsed.orgToken;
  } catch {
    // unreadable: removed all the same
  }
  if (signedIn || !orgToken) return 'removed';
  try {
    await signIn(orgToken);
    return 'signed-in';
  } catch {
    return 'removed';
  }
}
