'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useMemo, useState } from 'react';
import type { ApiError } from '@/lib/client/api';
import { useCredentials } from '@/lib/client/credentials';
import { formatDecimal, formatDuration, formatUsd } from '@/lib/client/format';
import { getSummary, listNodes, type StatsAuth } from '@/lib/client/stats';
import type { NodeEntry } from '@/lib/stats/schema';
import { Button } from '@/components/ui/button';
import { inputClass, NeedsCredential } from '@/components/ui/field';
import { StatusBadge } from './status-badge';

const REFRESH_MS = 30_000;
const PAGE = 25;
type SortKey = 'external_id' | 'public_name' | 'connection_status' | 'time_connected' | 'unit_shared' | 'usd_earned';
const COLUMNS: { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: 'public_name', label: 'Node' },
  { key: 'external_id', label: 'partner_node_id' },
  { key: 'connection_status', label: 'Status' },
  { key: 'time_connected', label: 'Total uptime', numeric: true },
  { key: 'unit_shared', label: 'Units shared', numeric: true },
  { key: 'usd_earned', label: 'USD earned', numeric: true },
];

/** Numeric text compared exactly: by length of the whole part, then as text. */
function compareDecimal(a: string, b: string) {
  const [aw = '', af = ''] = a.split('.');
  const [bw = '', bf = ''] = b.split('.');
  return aw.length - bw.length || aw.localeCompare(bw) || af.padEnd(20, '0').localeCompare(bf.padEnd(20, '0'));
}

function compare(a: NodeEntry, b: NodeEntry, key: SortKey) {
  if (key === 'time_connected') return a.time_connected - b.time_connected;
  if (key === 'unit_shared' || key === 'usd_earned') return compareDecimal(a[key], b[key]);
  return a[key].localeCompare(b[key], undefined, { numeric: true });
}

export function FleetView() {
  const { orgToken, partnerSecret } = useCredentials();
  const auth: StatsAuth = { orgToken, partnerSecret };
  const ready = !!orgToken && !!partnerSecret;
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'external_id', desc: false });
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

  if (!ready) return <NeedsCredential what="an organization token and a partner secret" />;
  const error = (summary.error ?? nodes.error) as ApiError | null;
  if (error) {
    return (
      <p role="alert" className="rounded-md bg-rose-50 p-4 text-sm text-rose-800">
        {error.status === 401
          ? 'The organization token or the partner secret was not accepted. Check them under Credentials.'
          : `Could not load statistics: ${error.explanation}`}
      </p>
    );
  }

  return (
    <div className="space-y-6">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-5" aria-label="Fleet totals">
        <Stat label="Nodes" value={summary.data && String(summary.data.nodes)} />
        <Stat
          label="Connected now"
          value={summary.data && `${summary.data.connected}`}
          hint={summary.data && summary.data.nodes ? `${Math.round((100 * summary.data.connected) / summary.data.nodes)} %` : undefined}
        />
        <Stat label="Total uptime" value={summary.data && formatDuration(summary.data.total_uptime)} />
        <Stat label="Units shared" value={summary.data && formatDecimal(summary.data.unit_shared, 3)} />
        <Stat label="USD earned" value={summary.data && formatUsd(summary.data.usd_earned)} />
      </div>

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
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
              <tr>
                {COLUMNS.map((c) => (
                  <th
                    key={c.key}
                    className={`px-4 py-2 ${c.numeric ? 'text-right' : ''}`}
                    aria-sort={sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
                  >
                    <button
                      type="button"
                      className="uppercase hover:text-slate-800"
                      onClick={() => {
                        setSort({ key: c.key, desc: sort.key === c.key ? !sort.desc : c.numeric === true });
                        setPage(0);
                      }}
                    >
                      {c.label} {sort.key === c.key ? (sort.desc ? '↓' : '↑') : ''}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {shown.map((n) => (
                <tr key={n.external_id} className="border-b border-slate-100 last:border-0 hover:bg-slate-50">
                  <td className="px-4 py-2">
                    <Link href={`/stats/${encodeURIComponent(n.external_id)}`} className="font-medium text-indigo-700 hover:underline">
                      {n.public_name}
                    </Link>
                    <div className="text-xs text-slate-500">{n.ip || '—'}</div>
                  </td>
                  <td className="px-4 py-2 font-mono text-xs">{n.external_id}</td>
                  <td className="px-4 py-2">
                    <StatusBadge status={n.connection_status} />
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatDuration(n.time_connected)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatDecimal(n.unit_shared, 3)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatUsd(n.usd_earned)}</td>
                </tr>
              ))}
              {shown.length === 0 && (
                <tr>
                  <td colSpan={COLUMNS.length} className="px-4 py-6 text-center text-slate-500">
                    No node matches “{search}”.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
      {all.length > 0 && (
        <div className="flex items-center gap-2 text-sm">
          <Button size="sm" disabled={current === 0} onClick={() => setPage(current - 1)}>
            Previous
          </Button>
          <span data-testid="page-info">
            Page {current + 1} of {pages} · {rows.length} of {total} nodes
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

function Stat({ label, value, hint }: { label: string; value?: string; hint?: string }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      <div className="text-xs uppercase text-slate-500">{label}</div>
      {value === undefined ? (
        <div className="mt-2 h-6 w-20 animate-pulse rounded bg-slate-200" />
      ) : (
        <div className="mt-1 text-xl font-semibold tabular-nums">
          {value} {hint && <span className="text-sm font-normal text-slate-500">{hint}</span>}
        </div>
      )}
    </div>
  );
}
