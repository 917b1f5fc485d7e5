'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { createOrganization, listOrganizations, type OrganizationInfo, setSuspended } from '@/lib/client/console';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { ErrorNote, NameForm, ShownOnce, TableBox, when } from './common';
import { reload } from '@/lib/client/reload';

/** The instance administrator's organizations: list, create (first token shown once), suspend and resume. */
export function OrganizationsPage() {
  const client = useQueryClient();
  const orgs = useQuery({ queryKey: ['organizations'], queryFn: listOrganizations });
  const [confirm, setConfirm] = useState<OrganizationInfo | null>(null);
  const create = useMutation({
    mutationFn: (name: string) => createOrganization({ name }),
    onSuccess: () => void reload(client, ['organizations']),
  });
  const toggle = useMutation({
    mutationFn: (o: OrganizationInfo) => setSuspended(o.id, !o.suspended_at),
    onSuccess: () => {
      setConfirm(null);
      void reload(client, ['organizations']);
    },
  });
  return (
    <div className="space-y-4">
      <NameForm
        title="Create an organization"
        label="Organization name"
        field="org-name"
        button="Create organization"
        onCreate={create.mutateAsync}
      />
      <ErrorNote error={create.error ?? orgs.error} />
      {create.data && (
        <ShownOnce
          label={`Org token of ${create.data.name}`}
          value={create.data.org_token}
          note="Give it to the organization: it signs in with it."
        />
      )}
      <TableBox label="Organizations">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th className="px-3 py-2">Id</th>
            <th className="px-3 py-2 text-right">API keys</th>
            <th className="px-3 py-2 text-right">Partners</th>
            <th className="px-3 py-2">Created</th>
            <th className="px-3 py-2">State</th>
            <th className="px-3 py-2" />
          </tr>
        </thead>
        <tbody>
          {(orgs.data ?? []).map((o) => (
            <tr key={o.id} className="border-b border-slate-100">
              <td className="px-3 py-2 font-medium">{o.name}</td>
              <td className="px-3 py-2 font-mono text-xs">{o.id}</td>
              <td className="px-3 py-2 text-right tabular-nums">{o.api_keys}</td>
              <td className="px-3 py-2 text-right tabular-nums">{o.partners}</td>
              <td className="px-3 py-2">{when(o.created_at)}</td>
              <td className="px-3 py-2">{o.suspended_at ? <span className="text-rose-700">suspended</span> : 'active'}</td>
              <td className="px-3 py-2 text-right">
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`${o.suspended_at ? 'Resume' : 'Suspend'} ${o.name}`}
                  onClick={() => setConfirm(o)}
                >
                  {o.suspended_at ? 'Resume' : 'Suspend'}
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {confirm && (
        <Dialog title={confirm.suspended_at ? 'Resume?' : 'Suspend?'} onClose={() => setConfirm(null)}>
          <p className="text-sm">
            {confirm.suspended_at
              ? `“${confirm.name}” and its credentials work again.`
              : `Every credential of “${confirm.name}” — API keys, org tokens, partner secrets, sessions — is refused with 403 until it is resumed.`}
          </p>
          <ErrorNote error={toggle.error} />
          <div className="mt-4 flex justify-end gap-2">
            <Button onClick={() => setConfirm(null)}>Cancel</Button>
            <Button
              variant={confirm.suspended_at ? 'primary' : 'danger'}
              disabled={toggle.isPending}
              onClick={() => toggle.mutate(confirm)}
            >
              {confirm.suspended_at ? 'Resume' : 'Suspend'}
            </Button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
