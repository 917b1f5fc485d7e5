'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AliasWire } from '@/lib/aliases/schema';
import { deleteAlias } from '@/lib/client/aliases';
import type { ApiError } from '@/lib/client/api';
import { relativeExpiry } from '@/lib/client/format';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Dialog } from '@/components/ui/dialog';
import { SecretValue } from '@/components/ui/secret-value';
import { JwtGenerator } from './jwt-generator';
import { reload } from '@/lib/client/reload';

/** An alias's details (secrets hidden until shown; the retrieve URL), with the JWT generator when it has a JWT secret. */
export function AliasDetails({ alias, onClose }: { alias: AliasWire; onClose: () => void }) {
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

/** Asks before deleting an alias for good. */
export function ConfirmDelete({ token, alias, onClose }: { token: string; alias: AliasWire; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteAlias(token, alias.id),
    onSuccess: () => {
      void reload(queryClient, ['aliases']);
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
