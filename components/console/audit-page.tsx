'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { listAudit } from '@/lib/client/console';
import { useSession } from '@/lib/client/session';
import { Button } from '@/components/ui/button';
import { NeedsCredential, selectClass } from '@/components/ui/field';
import { useUrlState } from '@/lib/client/url-state';
import { ErrorNote, TableBox, when } from './common';

/** The kinds of object the log names, to show one kind's entries (`?action=api_key`). */
const KINDS: Record<'org' | 'instance', string[]> = {
  org: ['session', 'api_key', 'org_token', 'partner', 'node', 'organization'],
  instance: ['session', 'organization', 'api_key', 'org_token', 'admin_token', 'partner', 'node', 'provider', 'demo_node'],
};

/** The audit log: the organization's for an org session, the whole instance's for the administrator. */
export function AuditPage() {
  const { session, loading } = useSession();
  const scope = session?.role === 'admin' ? 'instance' : 'org';
  const [view, setView] = useUrlState({ action: '' });
  const action = /^[a-z_]{1,40}(\.[a-z_]{1,40})?$/.test(view.action) ? view.action : '';
  const log = useInfiniteQuery({
    queryKey: ['audit', scope, action],
    queryFn: ({ pageParam }) => listAudit(scope, { before: pageParam ?? undefined, action: action || undefined }),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => (last.length === 50 ? last.at(-1)!.id : null),
    enabled: !!session,
    staleTime: 0, // asked again on every visit: the log is what just happened
    refetchInterval: 15_000,
  });
  if (loading) return null;
  if (!session) return <NeedsCredential what="a session" />;
  const entries = log.data?.pages.flat() ?? [];
  return (
    <div className="space-y-3">
      <label className="flex items-center gap-2 text-sm">
        <span className="font-medium">Show</span>
        <select
          aria-label="Show actions on"
          value={action}
          onChange={(e) => setView({ action: e.target.value || null })}
          className={selectClass}
        >
          <option value="">every action</option>
          {[...new Set([...KINDS[scope], ...(action && !KINDS[scope].includes(action) ? [action] : [])])].map((k) => (
            <option key={k} value={k}>
              {k.includes('.') ? k : `${k}.*`}
            </option>
          ))}
        </select>
      </label>
      <ErrorNote error={log.error} />
      <TableBox label="Audit log">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">When</th>
            <th className="px-3 py-2">Action</th>
            <th className="px-3 py-2">Object</th>
            <th className="px-3 py-2">Who</th>
            <th className="px-3 py-2">From</th>
            {scope === 'instance' && <th className="px-3 py-2">Organization</th>}
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.id} className="border-b border-slate-100 align-top">
              <td className="whitespace-nowrap px-3 py-2">{when(e.at)}</td>
              <td className="px-3 py-2 font-medium">
                {e.action}
                {e.detail && Object.keys(e.detail).length > 0 && (
                  <div className="font-mono text-xs font-normal text-slate-500 [overflow-wrap:anywhere]">{JSON.stringify(e.detail)}</div>
                )}
              </td>
              <td className="px-3 py-2 font-mono text-xs [overflow-wrap:anywhere]">{e.object ?? '—'}</td>
              <td className="px-3 py-2 font-mono text-xs [overflow-wrap:anywhere]">{e.actor}</td>
              <td className="px-3 py-2 font-mono text-xs">{e.address ?? '—'}</td>
              {scope === 'instance' && <td className="px-3 py-2 font-mono text-xs [overflow-wrap:anywhere]">{e.org_id ?? 'instance'}</td>}
            </tr>
          ))}
          {log.data && !entries.length && (
            <tr>
              <td colSpan={6} className="px-3 py-6 text-center text-slate-500">
                {action ? `Nothing recorded for ${action}.` : 'Nothing recorded yet.'}
              </td>
            </tr>
          )}
        </tbody>
      </TableBox>
      {log.hasNextPage && (
        <Button size="sm" onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Older entries
        </Button>
      )}
    </div>
  );
}
