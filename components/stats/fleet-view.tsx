'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { ApiError } from '@/lib/client/api';
import { choosePartner, type PartnerInfo, usePartner } from '@/lib/client/console';
import { useSession } from '@/lib/client/session';
import { getSummary, listNodes, type StatsAuth } from '@/lib/client/stats';
import { Button } from '@/components/ui/button';
import { inputClass, NeedsCredential } from '@/components/ui/field';
import { FleetTotals } from './fleet-totals';
import { compare, NodeTable, type Sort } from './node-table';

const REFRESH_MS = 30_000;
const PAGE = 25;
export function FleetView() {
  const { session } = useSession();
  const { partners, partner } = usePartner(session?.role === 'org');
  const auth: StatsAuth = { partnerId: partner?.id ?? '' };
  const ready = !!partner;
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<Sort>({ key: 'external_id', desc: false });
  const [page, setPage] = useState(0);

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
    const found = needle
      ? all.filter((n) => n.external_id.toLowerCase().includes(needle) || n.public_name.toLowerCase().includes(needle))
      : all;
    return [...found].sort((a, b) => (sort.desc ? -1 : 1) * compare(a, b, sort.key));
  }, [all, search, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const current = Math.min(page, pages - 1);
  const shown = rows.slice(current * PAGE, current * PAGE + PAGE);
  const total = nodes.data?.pages[0]?.metadata.total_count ?? 0;

  if (session?.role !== 'org') return <NeedsCredential what="an organization's session" />;
  if (!ready)
    return (
      <NeedsCredential what="a partner">
        {' '}
        and add one on the <a href="/partners">Partners</a> page
      </NeedsCredential>
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
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(0);
          }}
          className={`${inputClass} max-w-sm`}
        />
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
        <div className="rounded-md border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-600">
          This partner has no nodes yet. Register them with <code>POST /api/v1/node/register</code>, or try <code>npm run simulate</code>.
        </div>
      ) : (
        <NodeTable
          rows={shown}
          sort={sort}
          search={search}
          onSort={(next) => {
            setSort(next);
            setPage(0);
          }}
        />
      )}
      {all.length > 0 && (
        <div className="flex items-center gap-2 text-sm">
          <Button size="sm" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </Button>
          <span data-testid="page-info">
            Page {current + 1} of {pages} · {shown.length ? `${current * PAGE + 1}–${current * PAGE + shown.length}` : 'none'} of{' '}
            {rows.length === total ? `${total} nodes` : `${rows.length} matching (${total} nodes)`}
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
      <select aria-label="Partner" value={value} onChange={(e) => choosePartner(e.target.value)} className={`${inputClass} w-auto`}>
        {partners.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} ({p.nodes} nodes)
          </option>
        ))}
      </select>
    </label>
  );
}
