import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { reload } from './reload';

/** A list on a "server": each fetch reads it when it starts and answers when `release` is called. */
function slowList() {
  const rows: string[] = [];
  const pending: (() => void)[] = [];
  const fetchList = () => {
    const seen = [...rows];
    return new Promise<string[]>((resolve) => pending.push(() => resolve(seen)));
  };
  const release = () => pending.splice(0).forEach((answer) => answer());
  return { rows, fetchList, release };
}

describe('reload', () => {
  it('reads a list again after a write that came while its first fetch was under way', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const server = slowList();
    const observer = new QueryObserver(client, { queryKey: ['nodes'], queryFn: server.fetchList });
    const unsubscribe = observer.subscribe(() => {}); // the list is on screen: its query is active
    server.rows.push('edge-1'); // the write lands before the first fetch answers
    const reloaded = reload(client, ['nodes']);
    await new Promise((r) => setTimeout(r, 0));
    server.release();
    await reloaded;
    expect(client.getQueryData(['nodes'])).toEqual(['edge-1']);
    unsubscribe();
  });

  it('is what invalidateQueries alone is not: it hands back the fetch that began before the write', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const server = slowList();
    const observer = new QueryObserver(client, { queryKey: ['nodes'], queryFn: server.fetchList });
    const unsubscribe = observer.subscribe(() => {});
    server.rows.push('edge-1');
    const invalidated = client.invalidateQueries({ queryKey: ['nodes'] });
    await new Promise((r) => setTimeout(r, 0));
    server.release();
    await invalidated;
    expect(client.getQueryData(['nodes'])).toEqual([]);
    unsubscribe();
  });
});
