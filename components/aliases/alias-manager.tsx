'use client';

import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { AliasType, AliasWire } from '@/lib/aliases/schema';
import { deleteAlias, listAliases } from '@/lib/client/aliases';
import type { ApiError } from '@/lib/client/api';
import { useCredentials } from '@/lib/client/credentials';
import { relativeExpiry } from '@/lib/client/format';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Dialog } from '@/components/ui/dialog';
import { inputClass, NeedsCredential } from '@/components/ui/field';
import { SecretValue } from '@/components/ui/secret-value';
import { AliasForm } from './alias-form';
import { JwtGenerator } from './jwt-generator';

const TABS: { label: string; type?: AliasType }[] = [
  { label: 'All' },
  { label: 'Live', type: 'live' },
  { label: 'Conference', type: 'conference' },
];

type Open = { kind: 'create' } | { kind: 'edit' | 'details' | 'delete'; alias: AliasWire } | null;

export function AliasManager() {
  const { orgToken } = useCredentials();
  const [type, setType] = useState<AliasType | undefined>();
  const [search, setSearch] = useState('');
  const [q, setQ] = useState('');
  const [open, setOpen] = useState<Open>(null);
  const [, setTick] = useState(0);

  useEffect(() => {
    const t = setTimeout(() => setQ(search.trim()), 300);
    return () => clearTimeout(t);
  }, [search]);
  // Re-render each minute so "expires in …" stays true.
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 60_000);
    return () => clearInterval(t);
  }, []);

  const list = useInfiniteQuery({
    queryKey: ['aliases', orgToken, type, q],
    queryFn: ({ pageParam }) => listAliases(orgToken, { type, q, after: pageParam }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.after,
    enabled: !!orgToken,
  });
  const entries = list.data?.pages.flatMap((p) => p.entries) ?? [];
  const close = () => setOpen(null);

  if (!orgToken) return <NeedsCredential what="an organization token" />;

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <div role="tablist" aria-label="Alias type" className="flex rounded-md border border-slate-300 bg-white p-0.5">
          {TABS.map((t) => (
            <button
              key={t.label}
              role="tab"
              type="button"
              aria-selected={type === t.type}
              onClick={() => setType(t.type)}
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
        <div className="rounded-md border border-dashed border-slate-300 bg-white p-8 text-center text-sm text-slate-600">
          {q || type ? 'No alias matches.' : 'No aliases yet. Create one to share a live stream or a conference.'}
        </div>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full text-left text-sm">
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
                        <Button size="sm" onClick={() => setOpen({ kind: 'details', alias: a })}>
                          {a.jwt_secret ? 'Details & JWT' : 'Details'}
                        </Button>
                        <Button size="sm" onClick={() => setOpen({ kind: 'edit', alias: a })}>
                          Edit
                        </Button>
                        <Button size="sm" variant="ghost" className="text-rose-700" onClick={() => setOpen({ kind: 'delete', alias: a })}>
                          Delete
                        </Button>
                      </span>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
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

function accessSummary(a: AliasWire) {
  const parts = [a.passcode && 'passcode', a.jwt_secret && 'JWT'].filter(Boolean);
  return parts.length ? parts.join(' + ') : 'public';
}

function AliasDetails({ alias, onClose }: { alias: AliasWire; onClose: () => void }) {
  const url = typeof window === 'undefined' ? '' : `${window.location.origin}/organization/api/v1/alias/${alias.id}`;
  return (
    <Dialog title={alias.name ?? `Alias ${alias.id}`} onClose={onClose} wide>
      <dl className="grid grid-cols-[8rem_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="text-slate-500">Id</dt>
        <dd>
          <code className="font-mono">{alias.id}</code>
        </dd>
        <dt className="text-slate-500">Type</dt>
        <dd>{alias.type}</dd>
        <dt className="text-slate-500">Expires</dt>
        <dd>
          {new Date(alias.expired_at * 1000).toLocaleString()} ({relativeExpiry(alias.expired_at).text})
        </dd>
        <dt className="text-slate-500">Passcode</dt>
        <dd>
          <SecretValue label="passcode" value={alias.passcode} />
        </dd>
        <dt className="text-slate-500">JWT secret</dt>
        <dd>
          <SecretValue label="jwt_secret" value={alias.jwt_secret} />
        </dd>
        <dt className="text-slate-500">Stream key</dt>
        <dd>
          <SecretValue label="stream_key" value={alias.stream_key} />
        </dd>
        <dt className="text-slate-500">Retrieve URL</dt>
        <dd className="flex items-center gap-2">
          <code className="truncate font-mono text-xs">{url}</code> <CopyButton value={url} label="Copy retrieve URL" />
        </dd>
      </dl>
      {alias.jwt_secret ? (
        <section className="mt-6 border-t border-slate-200 pt-4">
          <h3 className="mb-3 font-semibold">JWT token generator</h3>
          <JwtGenerator alias={{ ...alias, jwt_secret: alias.jwt_secret }} />
        </section>
      ) : (
        <p className="mt-6 text-sm text-slate-500">Give this alias a JWT secret (Edit) to generate access tokens for it.</p>
      )}
    </Dialog>
  );
}

function ConfirmDelete({ token, alias, onClose }: { token: string; alias: AliasWire; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteAlias(token, alias.id),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['aliases'] });
      onClose();
    },
  });
  return (
    <Dialog title="Delete alias?" onClose={onClose}>
      <p className="text-sm text-slate-700">
        <strong>{alias.name ?? alias.id}</strong> (<code className="font-mono">{alias.id}</code>) will be removed permanently. Anyone using
        its id, passcode or tokens loses access.
      </p>
      {remove.isError && (
        <p role="alert" className="mt-3 text-sm text-rose-700">
          {(remove.error as ApiError).explanation}
        </p>
      )}
      <div className="mt-6 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
          {remove.isPending ? 'Deleting…' : 'Delete permanently'}
        </Button>
      </div>
    </Dialog>
  );
}
