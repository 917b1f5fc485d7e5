import Link from 'next/link';
import { formatDecimal, formatDuration, formatUsd } from '@/lib/client/format';
import type { NodeEntry } from '@/lib/stats/schema';
import { CardTable } from '@/components/ui/card-table';
import { StatusBadge } from './status-badge';

export type SortKey = 'external_id' | 'public_name' | 'connection_status' | 'time_connected' | 'unit_shared' | 'usd_earned';
export const COLUMNS: { key: SortKey; label: string; numeric?: boolean }[] = [
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

export function compare(a: NodeEntry, b: NodeEntry, key: SortKey) {
  if (key === 'time_connected') return a.time_connected - b.time_connected;
  if (key === 'unit_shared' || key === 'usd_earned') return compareDecimal(a[key], b[key]);
  return a[key].localeCompare(b[key], undefined, { numeric: true });
}

export type Sort = { key: SortKey; desc: boolean };

/** One page of nodes, sortable by any column (numbers descending first); a node's name opens its page. */
export function NodeTable({ rows, sort, search, onSort }: { rows: NodeEntry[]; sort: Sort; search: string; onSort: (next: Sort) => void }) {
  return (
    <CardTable label="Nodes">
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
                onClick={() => onSort({ key: c.key, desc: sort.key === c.key ? !sort.desc : c.numeric === true })}
              >
                {c.label} {sort.key === c.key ? (sort.desc ? '↓' : '↑') : ''}
              </button>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((n) => (
          <tr key={n.external_id} className="border-b border-slate-100 last:border-0 hover:bg-slate-50">
            <td className="px-4 py-2">
              {/* Not prefetched: a page of 25 nodes would fetch 25 node pages that are rarely opened. */}
              <Link
                href={`/stats/${encodeURIComponent(n.external_id)}`}
                prefetch={false}
                className="font-medium text-indigo-700 hover:underline"
              >
                {n.public_name}
              </Link>
              <div className="text-xs text-slate-500">{n.ip || '—'}</div>
            </td>
            <td className="px-4 py-2 font-mono text-xs">{n.external_id}</td>
            <td className="px-4 py-2">
              <StatusBadge status={n.connection_status} />
              <div
                className="mt-0.5 text-xs text-slate-500"
                data-testid="node-network"
                title="Private: it serves its own organization only. Network: admitted by the administrator to serve every organization."
              >
                {n.network === 'admitted' ? 'network' : 'private'}
              </div>
            </td>
            <td className="px-4 py-2 text-right tabular-nums">{formatDuration(n.time_connected)}</td>
            <td className="px-4 py-2 text-right tabular-nums">{formatDecimal(n.unit_shared, 3)}</td>
            <td className="px-4 py-2 text-right tabular-nums">{formatUsd(n.usd_earned)}</td>
          </tr>
        ))}
        {rows.length === 0 && (
          <tr>
            <td colSpan={COLUMNS.length} className="px-4 py-6 text-center text-slate-500">
              No node matches {search ? `“${search}”` : 'these filters'}.
            </td>
          </tr>
        )}
      </tbody>
    </CardTable>
  );
}
