'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { intParam, useUrlState } from '@/lib/client/url-state';
import type { ApiError } from '@/lib/client/api';
import { choosePartner, type PartnerInfo, usePartner } from '@/lib/client/console';
import { countOf } from '@/lib/client/format';
import { useSession } from '@/lib/client/session';
import { getSummary, listNodes, type StatsAuth } from '@/lib/client/stats';
import { Button } from '@/components/ui/button';
import { inputClass, selectClass, NeedsCredential } from '@/components/ui/field';
import { FleetTotals } from './fleet-totals';
import { COLUMNS, compare, NodeTable, type Sort, type SortKey } from './node-table';

const REFRESH_MS = 30_000;
const PAGE = 25;
export function FleetView() {
  const { session } = useSession();
  const { partners, partner, loading } = usePartner(session?.role === 'org');
  const auth: StatsAuth = { partnerId: partner?.id ?? '' };
  const ready = !!partner;
  // The view in the URL (design §19): ?q=…&status=connected&sort=-usd_earned&page=2
  const [view, setView] = useUrlState({ q: '', status: '', sort: 'external_id', page: '1' });
  const search = view.q;
  const status = view.status === 'connected' || view.status === 'disconnected' ? view.status : '';
  const sortKey = view.sort.replace(/^-/, '') as SortKey;
  const sort: Sort = COLUMNS.some((c) => c.key === sortKey)
    ? { key: sortKey, desc: view.sort.startsWith('-') }
    : { key: 'external_id', desc: false };
  const page = intParam(view.page, 1, 1) - 1;
  const setPage = (n: number) => setView({ page: String(n + 1) });

  const summary = useQuery({
    queryKey: ['stats-summary', auth],
    queryFn: () => getSummary(auth),
    enabled: ready,
    refetchInterval: REFRESH_MS,
  });
  const nodes = useInfiniteQuery({
    queryKey: ['stats-nodes', auth],
    queryFn: ({ pageParam }) => listNodes(auth, { after: pageParam, limit: 500 }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.metadata.after,
    enabled: ready,
    refetchInterval: REFRESH_MS,
  });

  const all = useMemo(() => nodes.data?.pages.flatMap((p) => p.entries) ?? [], [nodes.data]);
  const rows = useMemo(() => {
    const needle = search.trim().toLowerCase();
    const found = all.filter(
      (n) =>
        (!status || n.connection_status === status) &&
        (!needle || n.external_id.toLowerCase().includes(needle) || n.public_name.toLowerCase().includes(needle)),
    );
    return [...found].sort((a, b) => (sort.desc ? -1 : 1) * compare(a, b, sort.key));
  }, [all, search, status, sort.key, sort.desc]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const current = Math.min(page, pages - 1);
  const shown = rows.slice(current * PAGE, current * PAGE + PAGE);
  const total = nodes.data?.pages[0]?.metadata.total_count ?? 0;

  if (session?.role !== 'org') return <NeedsCredential what="an organization's session" />;
  if (loading) return <div aria-label="Loading partners" className="h-24 animate-pulse rounded-lg bg-slate-200" />;
  if (!ready)
    return (
      <p role="note" className="rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900">
        {session.organization?.name ?? 'The organization'} has no partner yet. Add one on the{' '}
        <a href="/partners" className="underline">
          Partners
        </a>{' '}
        page; its nodes show here.
      </p>
    );
  const error = (summary.error ?? nodes.error) as ApiError | null;
  if (error) {
    return (
      <p role="alert" className="rounded-md bg-rose-50 p-4 text-sm text-rose-800">
        {error.status === 401
          ? 'The session has ended, or the partner is no longer the organization’s. Sign in again.'
          : `Could not load statistics: ${error.explanation}`}
      </p>
    );
  }

  return (
    <div className="space-y-6">
      {partners.length > 1 && <PartnerPicker partners={partners} value={partner!.id} />}
      <FleetTotals summary={summary.data} />

      <div className="flex flex-wrap items-center gap-3">
        <input
          type="search"
          aria-label="Search nodes"
          placeholder="Search by partner_node_id or name"
          value={search}
          onChange={(e) => setView({ q: e.target.value, page: null }, 'replace')}
          className={`${inputClass} sm:max-w-sm`}
        />
        <select
          aria-label="Status"
          value={status}
          onChange={(e) => setView({ status: e.target.value || null, page: null })}
          className={selectClass}
        >
          <option value="">Every status</option>
          <option value="connected">Connected</option>
          <option value="disconnected">Disconnected</option>
        </select>
        {/* On a phone the table is cards, without its sortable header: the order is chosen here. */}
        <select
          aria-label="Sort by"
          value={`${sort.desc ? '-' : ''}${sort.key}`}
          onChange={(e) => setView({ sort: e.target.value, page: null })}
          className={`${selectClass} sm:hidden`}
        >
          {COLUMNS.flatMap((c) => [
            <option key={c.key} value={c.key}>
              {c.label} {c.numeric ? '↑' : 'A→Z'}
            </option>,
            <option key={`-${c.key}`} value={`-${c.key}`}>
              {c.label} {c.numeric ? '↓' : 'Z→A'}
            </option>,
          ])}
        </select>
        <span className="ml-auto text-xs text-slate-500">
          {nodes.isFetching
            ? 'Refreshing…'
            : nodes.dataUpdatedAt
              ? `Updated ${new Date(nodes.dataUpdatedAt).toLocaleTimeString()} · refreshes every 30 s`
              : ''}
        </span>
      </div>

      {nodes.isPending ? (
        <div aria-label="Loading nodes" className="space-y-2">
          {Array.from({ length: 6 }, (_, i) => (
            <div key={i} className="h-10 animate-pulse rounded bg-slate-200" />
          ))}
        </div>
      ) : all.length === 0 ? (
        <div className="rounded-md border border-dashed border-slate-300 bg-surface p-8 text-center text-sm text-slate-600">
          This partner has no nodes yet. Register them with <code>POST /api/v1/node/register</code>, or try <code>npm run simulate</code>.
        </div>
      ) : (
        <NodeTable
          rows={shown}
          sort={sort}
          search={search}
          onSort={(next) => setView({ sort: `${next.desc ? '-' : ''}${next.key}`, page: null })}
        />
      )}
      {all.length > 0 && (
        <div className="flex items-center gap-2 text-sm">
          <Button size="sm" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </Button>
          <span data-testid="page-info">
            Page {current + 1} of {pages} · {shown.length ? `${current * PAGE + 1}–${current * PAGE + shown.length}` : 'none'} of{' '}
            {rows.length === all.length ? countOf(total, 'node') : `${rows.length} matching (${countOf(total, 'node')})`}
          </span>
          <Button size="sm" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
            Next
          </Button>
          {nodes.hasNextPage && (
            <Button size="sm" className="ml-auto" onClick={() => nodes.fetchNextPage()} disabled={nodes.isFetchingNextPage}>
              Load 500 more from the server
            </Button>
          )}
        </div>
      )}
    </div>
  );
}

/** Which of the organization's partners the statistics show. */
function PartnerPicker({ partners, value }: { partners: PartnerInfo[]; value: string }) {
  return (
    <label className="flex items-center gap-2 text-sm">
      <span className="font-medium">Partner</span>
      <select aria-label="Partner" value={value} onChange={(e) => choosePartner(e.target.value)} className={selectClass}>
        {partners.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} ({countOf(p.nodes, 'node')})
          </option>
        ))}
      </select>
    </label>
  );
}
