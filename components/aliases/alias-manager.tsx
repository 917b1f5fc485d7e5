'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useUrlState } from '@/lib/client/url-state';
import type { AliasType } from '@/lib/aliases/schema';
import { listAliases } from '@/lib/client/aliases';
import type { ApiError } from '@/lib/client/api';
import { useSession } from '@/lib/client/session';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { inputClass, NeedsCredential } from '@/components/ui/field';
import { AliasDetails, ConfirmDelete } from './alias-dialogs';
import { AliasForm } from './alias-form';
import { type AliasAction, AliasTable } from './alias-table';

const TABS: { label: string; type?: AliasType }[] = [
  { label: 'All' },
  { label: 'Live', type: 'live' },
  { label: 'Conference', type: 'conference' },
];

type Open = { kind: 'create' } | AliasAction | null;

export function AliasManager() {
  const { session } = useSession();
  // The session's cookie authenticates the calls: no token is passed.
  const orgToken = '';
  const signedIn = session?.role === 'org';
  // The tab and the search are the view's, in the URL (?type=live&q=launch).
  const [view, setView] = useUrlState({ type: '', q: '' });
  const type = TABS.find((t) => t.type === view.type)?.type;
  const q = view.q.trim();
  const [search, setSearch] = useState(view.q);
  const [open, setOpen] = useState<Open>(null);
  const [, setTick] = useState(0);

  const written = useRef(view.q);
  useEffect(() => {
    const t = setTimeout(() => {
      written.current = search.trim();
      setView({ q: written.current }, 'replace');
    }, 300);
    return () => clearTimeout(t);
  }, [search, setView]);
  // Back, forward or a pasted link changed the search: the box shows it.
  useEffect(() => {
    if (view.q === written.current) return;
    written.current = view.q;
    setSearch(view.q); // the box follows the URL
  }, [view.q]);
  // Re-render each minute so "expires in …" stays true.
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 60_000);
    return () => clearInterval(t);
  }, []);

  const list = useInfiniteQuery({
    queryKey: ['aliases', type, q],
    queryFn: ({ pageParam }) => listAliases(orgToken, { type, q, after: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.after,
    enabled: signedIn,
  });
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  const close = () => setOpen(null);

  if (!signedIn) return <NeedsCredential what="an organization's session" />;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <div role="tablist" aria-label="Alias type" className="flex rounded-md border border-slate-300 bg-surface p-0.5">
          {TABS.map((t) => (
            <button
              key={t.label}
              role="tab"
              type="button"
              aria-selected={type === t.type}
              onClick={() => setView({ type: t.type ?? null })}
              className={`rounded px-3 py-1.5 text-sm font-medium ${type === t.type ? 'bg-indigo-600 text-white' : 'text-slate-600 hover:bg-slate-100'}`}
            >
              {t.label}
            </button>
          ))}
        </div>
        <input
          type="search"
          aria-label="Search aliases"
          placeholder="Search by name or id"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className={`${inputClass} max-w-xs`}
        />
        <Button variant="primary" className="ml-auto" onClick={() => setOpen({ kind: 'create' })}>
          New alias
        </Button>
      </div>

      {list.isPending ? (
        <div aria-label="Loading aliases" className="space-y-2">
          {[0, 1, 2].map((i) => (
            <div key={i} className="h-12 animate-pulse rounded-md bg-slate-200" />
          ))}
        </div>
      ) : list.isError ? (
        <p role="alert" className="rounded-md bg-rose-50 p-4 text-sm text-rose-800">
          {(list.error as ApiError).status === 401
            ? 'The organization token was not accepted. Check it under Credentials.'
            : `Could not load aliases: ${(list.error as ApiError).explanation}`}
        </p>
      ) : entries.length === 0 ? (
        <div className="rounded-md border border-dashed border-slate-300 bg-surface p-8 text-center text-sm text-slate-600">
          {q || type ? 'No alias matches.' : 'No aliases yet. Create one to share a live stream or a conference.'}
        </div>
      ) : (
        <AliasTable entries={entries} onOpen={setOpen} />
      )}
      {list.hasNextPage && (
        <div className="text-center">
          <Button onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
            {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </Button>
        </div>
      )}

      {open?.kind === 'create' && (
        <Dialog title="New alias" onClose={close}>
          <AliasForm token={orgToken} onSaved={(a) => setOpen({ kind: 'details', alias: a })} onCancel={close} />
        </Dialog>
      )}
      {open?.kind === 'edit' && (
        <Dialog title={`Edit ${open.alias.name ?? open.alias.id}`} onClose={close}>
          <AliasForm token={orgToken} alias={open.alias} onSaved={close} onCancel={close} />
        </Dialog>
      )}
      {open?.kind === 'details' && <AliasDetails alias={open.alias} onClose={close} />}
      {open?.kind === 'delete' && <ConfirmDelete token={orgToken} alias={open.alias} onClose={close} />}
    </div>
  );
}
