'use client';

import type { AliasWire } from '@/lib/aliases/schema';
import { relativeExpiry } from '@/lib/client/format';
import { Button } from '@/components/ui/button';
import { CardTable } from '@/components/ui/card-table';
import { CopyButton } from '@/components/ui/copy-button';

export type AliasAction = { kind: 'edit' | 'details' | 'delete'; alias: AliasWire };

/** The aliases of a page of the list: name, id, type, access, expiry, and their actions. */
export function AliasTable({ entries, onOpen }: { entries: AliasWire[]; onOpen: (action: AliasAction) => void }) {
  return (
    <CardTable label="Aliases">
      <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
        <tr>
          <th className="px-4 py-2">Name</th>
          <th className="px-4 py-2">Id</th>
          <th className="px-4 py-2">Type</th>
          <th className="px-4 py-2">Access</th>
          <th className="px-4 py-2">Expiry</th>
          <th className="px-4 py-2 text-right">Actions</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((a) => {
          const expiry = relativeExpiry(a.expired_at);
          return (
            <tr key={a.id} data-testid={`alias-row-${a.id}`} className="border-b border-slate-100 last:border-0">
              <td className="px-4 py-2 font-medium">{a.name ?? <span className="text-slate-400">—</span>}</td>
              <td className="px-4 py-2">
                <span className="inline-flex items-center gap-1">
                  <code className="font-mono text-xs">{a.id}</code> <CopyButton value={a.id} label={`Copy id ${a.id}`} />
                </span>
              </td>
              <td className="px-4 py-2">
                <span
                  className={`rounded-full px-2 py-0.5 text-xs font-medium ${a.type === 'live' ? 'bg-sky-100 text-sky-800' : 'bg-violet-100 text-violet-800'}`}
                >
                  {a.type}
                </span>
              </td>
              <td className="px-4 py-2 text-xs text-slate-600">{accessSummary(a)}</td>
              <td
                className={`px-4 py-2 text-xs ${expiry.expired ? 'font-medium text-rose-700' : 'text-slate-600'}`}
                title={new Date(a.expired_at * 1000).toLocaleString()}
              >
                {expiry.text}
              </td>
              <td className="px-4 py-2 text-right">
                <span className="inline-flex gap-1">
                  <Button size="sm" onClick={() => onOpen({ kind: 'details', alias: a })}>
                    {a.jwt_secret ? 'Details & JWT' : 'Details'}
                  </Button>
                  <Button size="sm" onClick={() => onOpen({ kind: 'edit', alias: a })}>
                    Edit
                  </Button>
                  <Button size="sm" variant="ghost" className="text-rose-700" onClick={() => onOpen({ kind: 'delete', alias: a })}>
                    Delete
                  </Button>
                </span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </CardTable>
  );
}

function accessSummary(a: AliasWire) {
  const parts = [a.passcode && 'passcode', a.jwt_secret && 'JWT'].filter(Boolean);
  return parts.length ? parts.join(' + ') : 'public';
}
