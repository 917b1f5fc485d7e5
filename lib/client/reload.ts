import type { QueryClient, QueryKey } from '@tanstack/react-query';

/**
 * Reads the queries under `queryKey` again after a write. `invalidateQueries` alone hands back a fetch already
 * under way when the query has no data yet (TanStack Query shares it) — one that began before the write and
 * answers without it, so a list opened a moment before a row was added would show it only at its next refetch.
 * Such a fetch is cancelled first.
 */
export async function reload(client: QueryClient, queryKey: QueryKey): Promise<void> {
  await client.cancelQueries({ queryKey });
  await client.invalidateQueries({ queryKey });
}
