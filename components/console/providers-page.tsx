'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  addProvider,
  listProviders,
  type Provider,
  type ProviderFields,
  type ProviderTest,
  listOrganizations,
  removeProvider,
  setAdmission,
  testProvider,
  updateProvider,
} from '@/lib/client/console';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { inputClass } from '@/components/ui/field';
import { CAPABILITIES, type Capability, NATIVE_ENDPOINTS, type NativeEndpoint } from '@/lib/chat/capabilities';
import { ErrorNote, TableBox, when } from './common';
import { reload } from '@/lib/client/reload';

/** A share as a percentage: one decimal under 10 %, none above. */
const percent = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)} %`;

const ENDPOINT_LABEL: Record<NativeEndpoint, string> = { responses: 'Responses API', messages: 'Anthropic Messages' };

const CAPABILITY_LABEL: Record<Capability, string> = {
  tools: 'Tools',
  vision: 'Images',
  json_schema: 'JSON schema',
  logprobs: 'Log probabilities',
};
const STATE_STYLE = { up: 'bg-emerald-100 text-emerald-800', down: 'bg-rose-100 text-rose-800', unknown: 'bg-slate-100 text-slate-700' };

/** The administrator's providers (design §10): add, edit, test, enable or disable, remove; their health. */
export function ProvidersPage() {
  const client = useQueryClient();
  const providers = useQuery({ queryKey: ['providers'], queryFn: listProviders, refetchInterval: 10_000 });
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [tested, setTested] = useState<{ name: string; result: ProviderTest } | null>(null);
  const refresh = () => void reload(client, ['providers']);
  const test = useMutation({
    mutationFn: (name: string) => testProvider(name).then((result) => ({ name, result })),
    onSuccess: (r) => {
      setTested(r);
      refresh();
    },
  });
  const toggle = useMutation({ mutationFn: (p: Provider) => updateProvider(p.name, { enabled: !p.enabled }), onSuccess: refresh });
  const orgs = useQuery({ queryKey: ['organizations'], queryFn: listOrganizations });
  const orgName = (id: string | null) => orgs.data?.find((o) => o.id === id)?.name ?? id ?? 'no organization';
  const admission = useMutation({
    mutationFn: ({ admit, ref }: { admit: boolean; ref: { partner_id: string; partner_node_id?: string } }) => setAdmission(admit, ref),
    onSuccess: refresh,
  });
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-3">
        <p className="min-w-0 flex-1 text-sm text-slate-600">
          OpenAI-compatible model servers behind the chat API. One added by URL serves every organization; a partner&apos;s node that dials
          in serves its own organization only (another organization&apos;s prompts never reach it) until you admit it, or its whole partner,
          to the network.
        </p>
        <Button variant="primary" className="ml-auto shrink-0" onClick={() => setEditing('new')}>
          Add provider
        </Button>
      </div>
      <ErrorNote error={providers.error ?? test.error ?? toggle.error ?? admission.error} />
      {tested && (
        <p
          role="status"
          data-testid="provider-test"
          className={`rounded-md p-3 text-sm ${tested.result.ok ? 'bg-emerald-50 text-emerald-900' : 'bg-rose-50 text-rose-900'}`}
        >
          {tested.name}:{' '}
          {tested.result.ok
            ? `reachable in ${tested.result.latency_ms} ms; models ${tested.result.models.join(', ') || 'none'}`
            : `not reachable: ${tested.result.error}`}
        </p>
      )}
      <TableBox label="Providers">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th className="px-3 py-2">Health</th>
            <th className="px-3 py-2">Serves</th>
            <th className="px-3 py-2 text-right">Weight</th>
            <th className="whitespace-nowrap px-3 py-2 text-right" title="USD per million tokens, prompt (in) and completion (out)">
              USD / 1M
            </th>
            <th className="whitespace-nowrap px-3 py-2 text-right" title="Attempts over the last 24 hours, from every instance">
              Traffic 24 h
            </th>
            <th className="px-3 py-2 text-right" title="Attempts that failed before a first byte (tried elsewhere or refused)">
              Errors
            </th>
            <th className="px-3 py-2">Checked</th>
            <th className="px-3 py-2" />
          </tr>
        </thead>
        <tbody>
          {(providers.data ?? []).map((p) => (
            <tr key={p.id} className="border-b border-slate-100 align-top">
              <td className="px-3 py-2">
                <div className="font-medium">{p.name}</div>
                <div className="font-mono text-xs text-slate-500 [overflow-wrap:anywhere]">
                  {p.kind === 'tunnel' ? `node tunnel: ${p.node?.partner_node_id ?? '?'} (its agent dials in)` : p.base_url}
                </div>
                {p.tenancy && p.node && (
                  <div className="mt-1 text-xs" data-testid={`network-${p.name}`}>
                    {p.tenancy.network === 'private' ? (
                      <span className="rounded bg-slate-100 px-1.5 py-0.5 font-medium text-slate-700">
                        Private: {orgName(p.tenancy.org_id)} only
                      </span>
                    ) : (
                      <span className="rounded bg-sky-100 px-1.5 py-0.5 font-medium text-sky-800">
                        Network{p.tenancy.admitted_as === 'partner' ? ' (whole partner)' : ''}
                      </span>
                    )}
                    {p.tenancy.admitted_at && (
                      <span className="ml-1 text-slate-500">
                        admitted by {p.tenancy.admitted_by ?? '?'} {when(p.tenancy.admitted_at)}
                      </span>
                    )}
                    <Button
                      size="sm"
                      variant="ghost"
                      className="ml-1"
                      aria-label={`${p.tenancy.network === 'private' ? 'Admit' : 'Revoke'} ${p.name}${p.tenancy.admitted_as === 'partner' ? "'s partner" : ''}`}
                      disabled={admission.isPending}
                      onClick={() =>
                        admission.mutate({
                          admit: p.tenancy!.network === 'private',
                          ref:
                            p.tenancy!.admitted_as === 'partner'
                              ? { partner_id: p.node!.partner_id }
                              : { partner_id: p.node!.partner_id, partner_node_id: p.node!.partner_node_id },
                        })
                      }
                    >
                      {p.tenancy.network === 'private'
                        ? 'Admit to network'
                        : p.tenancy.admitted_as === 'partner'
                          ? 'Revoke partner'
                          : 'Make private'}
                    </Button>
                  </div>
                )}
              </td>
              <td className="px-3 py-2">
                <span
                  data-testid={`health-${p.name}`}
                  className={`rounded px-2 py-0.5 text-xs font-medium ${p.enabled ? STATE_STYLE[p.health.state] : STATE_STYLE.unknown}`}
                >
                  {p.enabled ? p.health.state : 'disabled'}
                </span>
                {p.health.latency_ms !== null && (
                  <span className="ml-2 whitespace-nowrap text-xs text-slate-500">{p.health.latency_ms} ms</span>
                )}
                {p.health.last_error && <div className="text-xs text-rose-700 [overflow-wrap:anywhere]">{p.health.last_error}</div>}
              </td>
              <td className="px-3 py-2 text-xs [overflow-wrap:anywhere]">
                {p.serves.join(', ') || '—'}
                <div className="text-slate-500" data-testid={`capabilities-${p.name}`}>
                  {p.capabilities === null ? 'capabilities not declared' : `can: ${p.capabilities.join(', ') || 'text only'}`}
                </div>
                {p.endpoints && (
                  <div className="text-slate-500" data-testid={`endpoints-${p.name}`}>
                    speaks natively: {p.endpoints.map((e) => ENDPOINT_LABEL[e]).join(', ')}
                  </div>
                )}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{p.weight}</td>
              <td className="px-3 py-2 text-right text-xs tabular-nums" data-testid={`prices-${p.name}`}>
                {p.price_prompt === null && p.price_completion === null ? (
                  'free'
                ) : (
                  <>
                    <div>in ${p.price_prompt ?? '0'}</div>
                    <div>out ${p.price_completion ?? '0'}</div>
                  </>
                )}
              </td>
              <td className="px-3 py-2 text-right tabular-nums" data-testid={`share-${p.name}`}>
                {p.traffic ? `${percent(p.traffic.share)}` : '—'}
                {p.traffic && <div className="text-xs text-slate-500">{p.traffic.requests.toLocaleString('en-US')} attempts</div>}
              </td>
              <td
                className={`px-3 py-2 text-right tabular-nums ${p.traffic?.error_rate ? 'text-rose-700' : ''}`}
                data-testid={`errors-${p.name}`}
              >
                {p.traffic?.error_rate == null ? '—' : percent(p.traffic.error_rate)}
                {!!p.traffic?.failed && <div className="text-xs">{p.traffic.failed.toLocaleString('en-US')} failed</div>}
              </td>
              <td className="px-3 py-2 text-xs">{when(p.health.checked_at)}</td>
              <td className="space-x-1 whitespace-nowrap px-3 py-2 text-right">
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Test ${p.name}`}
                  disabled={test.isPending}
                  onClick={() => test.mutate(p.name)}
                >
                  Test
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`${p.enabled ? 'Disable' : 'Enable'} ${p.name}`}
                  onClick={() => toggle.mutate(p)}
                >
                  {p.enabled ? 'Disable' : 'Enable'}
                </Button>
                <Button size="sm" variant="ghost" aria-label={`Edit ${p.name}`} onClick={() => setEditing(p)}>
                  Edit
                </Button>
              </td>
            </tr>
          ))}
          {providers.data?.length === 0 && (
            <tr>
              <td colSpan={9} className="px-3 py-6 text-center text-slate-500">
                No providers: chat is answered by the built-in guide only.
              </td>
            </tr>
          )}
        </tbody>
      </TableBox>
      {editing && (
        <ProviderDialog
          provider={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            refresh();
          }}
        />
      )}
    </div>
  );
}

function ProviderDialog({ provider, onClose, onDone }: { provider: Provider | null; onClose: () => void; onDone: () => void }) {
  const [form, setForm] = useState({
    name: provider?.name ?? '',
    base_url: provider?.base_url ?? '',
    api_key: '',
    models: provider?.models?.join(', ') ?? '',
    weight: String(provider?.weight ?? 1),
    timeout_ms: String(provider?.timeout_ms ?? 60_000),
    price_prompt: provider?.price_prompt ?? '',
    price_completion: provider?.price_completion ?? '',
  });
  // null: not declared (the provider decides what it can serve).
  const [capabilities, setCapabilities] = useState<Capability[] | null>(provider?.capabilities ?? null);
  // The APIs its server speaks natively (passed through to it); empty: everything translated.
  const [endpoints, setEndpoints] = useState<NativeEndpoint[]>(provider?.endpoints ?? []);
  const toggleEndpoint = (e: NativeEndpoint) => setEndpoints((now) => (now.includes(e) ? now.filter((x) => x !== e) : [...now, e]));
  const toggleCapability = (c: Capability) =>
    setCapabilities((now) => ((now ?? []).includes(c) ? (now ?? []).filter((x) => x !== c) : [...(now ?? []), c]));
  const set = (k: keyof typeof form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm({ ...form, [k]: e.target.value });
  const save = useMutation({
    mutationFn: () => {
      const models = form.models
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean);
      // A node's tunnel: its address and key are its agent's.
      const tunnel = provider?.kind === 'tunnel';
      const fields: ProviderFields = {
        ...(tunnel ? {} : { base_url: form.base_url }),
        models: models.length ? models : null,
        weight: Number(form.weight),
        timeout_ms: Number(form.timeout_ms),
        price_prompt: form.price_prompt.trim() || null,
        price_completion: form.price_completion.trim() || null,
        capabilities,
        endpoints: endpoints.length ? endpoints : null,
        // Blank keeps the stored key (never shown again).
        ...(form.api_key ? { api_key: form.api_key } : {}),
      };
      return provider
        ? updateProvider(provider.name, { ...fields, ...(form.name !== provider.name ? { name: form.name } : {}) })
        : addProvider({ name: form.name, ...fields });
    },
    onSuccess: onDone,
  });
  const remove = useMutation({ mutationFn: () => removeProvider(provider!.name), onSuccess: onDone });
  const field = (k: keyof typeof form, label: string, extra: React.InputHTMLAttributes<HTMLInputElement> = {}) => (
    <label className="block text-sm">
      <span className="font-medium">{label}</span>
      <input name={k} value={form[k]} onChange={set(k)} className={`${inputClass} mt-1`} {...extra} />
    </label>
  );
  return (
    <Dialog title={provider ? `Edit ${provider.name}` : 'Add a provider'} onClose={onClose}>
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        {field('name', 'Name', { required: true })}
        {provider?.kind !== 'tunnel' && (
          <>
            {field('base_url', 'Base URL', { required: true, placeholder: 'http://127.0.0.1:11434/v1' })}
            {field('api_key', provider?.has_api_key ? 'API key (blank keeps the stored one)' : 'API key (optional)', {
              type: 'password',
              autoComplete: 'off',
            })}
          </>
        )}
        {field('models', 'Models (comma-separated; blank: all it lists)')}
        <div className="grid grid-cols-2 gap-3">
          {field('weight', 'Weight', { type: 'number', min: 1, max: 1000 })}
          {field('timeout_ms', 'Timeout, ms', { type: 'number', min: 100, max: 600_000 })}
          {field('price_prompt', 'Prompt, USD per 1M tokens', { inputMode: 'decimal', placeholder: 'free' })}
          {field('price_completion', 'Completion, USD per 1M tokens', { inputMode: 'decimal', placeholder: 'free' })}
        </div>
        <fieldset className="space-y-1 text-sm">
          <legend className="font-medium">What its models can do beyond text</legend>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={capabilities === null} onChange={(e) => setCapabilities(e.target.checked ? null : [])} />
            Not declared: the provider decides
          </label>
          {capabilities !== null && (
            <div className="flex flex-wrap gap-x-4 gap-y-1 pl-6">
              {CAPABILITIES.map((c) => (
                <label key={c} className="flex items-center gap-1">
                  <input type="checkbox" name={`capability-${c}`} checked={capabilities.includes(c)} onChange={() => toggleCapability(c)} />
                  {CAPABILITY_LABEL[c]}
                </label>
              ))}
            </div>
          )}
          <p className="text-xs text-slate-500">
            Declared, a request that needs one (tools, images, a JSON schema, log probabilities) skips this provider when it lacks it.
          </p>
        </fieldset>
        {provider?.kind !== 'tunnel' && (
          <fieldset className="space-y-1 text-sm">
            <legend className="font-medium">APIs its server speaks natively</legend>
            <div className="flex flex-wrap gap-x-4 gap-y-1">
              {NATIVE_ENDPOINTS.map((e) => (
                <label key={e} className="flex items-center gap-1">
                  <input type="checkbox" name={`endpoint-${e}`} checked={endpoints.includes(e)} onChange={() => toggleEndpoint(e)} />
                  {ENDPOINT_LABEL[e]}
                </label>
              ))}
            </div>
            <p className="text-xs text-slate-500">
              Requests of these are passed through to it as the client wrote them; the rest are translated onto Chat Completions.
            </p>
          </fieldset>
        )}
        <ErrorNote error={save.error ?? remove.error} />
        <div className="flex flex-wrap justify-end gap-2">
          {provider && (
            <Button variant="danger" className="mr-auto" onClick={() => remove.mutate()} disabled={remove.isPending}>
              Remove
            </Button>
          )}
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={save.isPending}>
            {provider ? 'Save' : 'Add'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
