'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import {
  choosePartner,
  createPartner,
  listPartners,
  listTunnels,
  type PartnerInfo,
  registerNode,
  renameNode,
  rotatePartnerSecret,
} from '@/lib/client/console';
import { listNodes } from '@/lib/client/stats';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { inputClass } from '@/components/ui/field';
import { ErrorNote, NameForm, ShownOnce, TableBox, when } from './common';
import { ConnectPanel, TunnelState } from './node-connect';
import { reload } from '@/lib/client/reload';

/** Partners of the signed-in organization: create, rotate the secret, their nodes (register, rename), their statistics. */
export function PartnersPage() {
  const client = useQueryClient();
  const partners = useQuery({ queryKey: ['partners'], queryFn: listPartners });
  const [shown, setShown] = useState<{ label: string; value: string } | null>(null);
  const [rotating, setRotating] = useState<PartnerInfo | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: (name: string) => createPartner({ name }),
    onSuccess: (p) => {
      setShown({ label: `Partner secret of ${p.name}`, value: p.secret });
      void reload(client, ['partners']);
    },
  });
  return (
    <div className="space-y-4">
      <NameForm title="Create a partner" label="Partner name" field="partner-name" button="Create partner" onCreate={create.mutateAsync} />
      <ErrorNote error={create.error ?? partners.error} />
      {shown && <ShownOnce label={shown.label} value={shown.value} note="Nodes send it with their events." />}
      <TableBox label="Partners">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th className="px-3 py-2">Secret</th>
            <th className="px-3 py-2 text-right">Nodes</th>
            <th className="px-3 py-2">Created</th>
            <th className="px-3 py-2" />
          </tr>
        </thead>
        <tbody>
          {(partners.data ?? []).map((p) => (
            <tr key={p.id} className="border-b border-slate-100 align-top">
              <td className="px-3 py-2 font-medium">{p.name}</td>
              <td className="px-3 py-2 font-mono text-xs">{p.secret_prefix}…</td>
              <td className="px-3 py-2 text-right tabular-nums">{p.nodes}</td>
              <td className="px-3 py-2">{when(p.created_at)}</td>
              <td className="space-x-1 whitespace-nowrap px-3 py-2 text-right">
                <Link href="/stats" onClick={() => choosePartner(p.id)} className="text-xs font-medium text-indigo-700 hover:underline">
                  Statistics
                </Link>
                <Button size="sm" variant="ghost" aria-label={`Nodes of ${p.name}`} onClick={() => setOpen(open === p.id ? null : p.id)}>
                  Nodes
                </Button>
                <Button size="sm" variant="ghost" aria-label={`Rotate the secret of ${p.name}`} onClick={() => setRotating(p)}>
                  Rotate secret
                </Button>
              </td>
            </tr>
          ))}
          {partners.data?.length === 0 && (
            <tr>
              <td colSpan={5} className="px-3 py-6 text-center text-slate-500">
                No partners yet.
              </td>
            </tr>
          )}
        </tbody>
      </TableBox>
      {open && <Nodes partner={(partners.data ?? []).find((p) => p.id === open)!} />}
      {rotating && (
        <RotateDialog
          partner={rotating}
          onClose={() => setRotating(null)}
          onRotated={(secret) => {
            setShown({ label: `New partner secret of ${rotating.name}`, value: secret });
            setRotating(null);
            void reload(client, ['partners']);
          }}
        />
      )}
    </div>
  );
}

function RotateDialog({ partner, onClose, onRotated }: { partner: PartnerInfo; onClose: () => void; onRotated: (secret: string) => void }) {
  const run = useMutation({ mutationFn: () => rotatePartnerSecret(partner.id), onSuccess: (r) => onRotated(r.secret) });
  return (
    <Dialog title="Rotate the partner secret?" onClose={onClose}>
      <p className="text-sm">
        A new secret for “{partner.name}”. The current one ({partner.secret_prefix}…) stops working at once: nodes must be given the new
        one.
      </p>
      <ErrorNote error={run.error} />
      <div className="mt-4 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="danger" disabled={run.isPending} onClick={() => run.mutate()}>
          Rotate
        </Button>
      </div>
    </Dialog>
  );
}

function Nodes({ partner }: { partner: PartnerInfo }) {
  const client = useQueryClient();
  // Refreshed: a node agent registers its node by itself.
  const nodes = useQuery({
    queryKey: ['partner-nodes', partner.id],
    queryFn: () => listNodes({ partnerId: partner.id }, { limit: 500 }),
    refetchInterval: 5000,
  });
  const tunnels = useQuery({ queryKey: ['partner-tunnels', partner.id], queryFn: () => listTunnels(partner.id), refetchInterval: 5000 });
  const tunnelOf = new Map((tunnels.data ?? []).map((t) => [t.partner_node_id, t]));
  const [connecting, setConnecting] = useState<string | null>(null);
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const refresh = () => {
    void reload(client, ['partner-nodes', partner.id]);
    void reload(client, ['partners']);
  };
  const register = useMutation({
    mutationFn: () => registerNode(partner.id, { id: id.trim(), ...(name.trim() ? { name: name.trim() } : {}) }),
    onSuccess: () => {
      setId('');
      setName('');
      refresh();
    },
  });
  const rename = useMutation({
    mutationFn: (r: { id: string; name: string }) => renameNode(partner.id, r.id, r.name.trim()),
    onSuccess: () => {
      setRenaming(null);
      refresh();
    },
  });
  return (
    <section aria-label={`Nodes of ${partner.name}`} className="space-y-3 rounded-lg border border-slate-200 bg-surface p-4">
      <h2 className="font-semibold">Nodes of {partner.name}</h2>
      <form
        aria-label="Register a node"
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          register.mutate();
        }}
      >
        <label className="block min-w-0 flex-1 text-sm">
          <span className="font-medium">partner_node_id</span>
          <input
            name="node-id"
            required
            maxLength={200}
            value={id}
            onChange={(e) => setId(e.target.value)}
            className={`${inputClass} mt-1`}
          />
        </label>
        <label className="block min-w-0 flex-1 text-sm">
          <span className="font-medium">Name</span>
          <input name="node-name" maxLength={200} value={name} onChange={(e) => setName(e.target.value)} className={`${inputClass} mt-1`} />
        </label>
        <Button type="submit" disabled={!id.trim() || register.isPending}>
          Register node
        </Button>
      </form>
      <ErrorNote error={register.error ?? rename.error ?? nodes.error} />
      <ConnectPanel node={connecting ?? 'NODE-ID'} chosen={connecting !== null} />
      <ul className="divide-y divide-slate-100 text-sm">
        {(nodes.data?.entries ?? []).map((n) => (
          <li key={n.external_id} className="flex flex-wrap items-center gap-2 py-2">
            <span className="font-mono text-xs">{n.external_id}</span>
            {renaming?.id === n.external_id ? (
              <form
                className="flex flex-1 gap-2"
                onSubmit={(e) => {
                  e.preventDefault();
                  rename.mutate(renaming);
                }}
              >
                <input
                  aria-label={`New name of ${n.external_id}`}
                  required
                  maxLength={100}
                  value={renaming.name}
                  onChange={(e) => setRenaming({ id: n.external_id, name: e.target.value })}
                  className={inputClass}
                />
                <Button type="submit" size="sm" variant="primary">
                  Save
                </Button>
              </form>
            ) : (
              <>
                <span className="flex-1">{n.public_name}</span>
                <NetworkBadge network={n.network} />
                <TunnelState tunnel={tunnelOf.get(n.external_id)} />
                <Button size="sm" variant="ghost" aria-label={`Connect ${n.external_id}`} onClick={() => setConnecting(n.external_id)}>
                  Connect
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Rename ${n.external_id}`}
                  onClick={() => setRenaming({ id: n.external_id, name: n.public_name })}
                >
                  Rename
                </Button>
              </>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Whom a node serves (design §20): this organization only, or every organization once an administrator admitted it. */
function NetworkBadge({ network }: { network: 'private' | 'admitted' }) {
  return network === 'private' ? (
    <span
      data-testid="node-network"
      title="It serves this organization's completions only; the instance's administrator can admit it to the network."
      className="rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700"
    >
      private
    </span>
  ) : (
    <span
      data-testid="node-network"
      title="Admitted to the network by the instance's administrator: it serves every organization's completions, and sees their prompts."
      className="rounded bg-sky-100 px-1.5 py-0.5 text-xs font-medium text-sky-800"
    >
      network
    </span>
  );
}
