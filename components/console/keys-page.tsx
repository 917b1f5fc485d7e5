'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  type ApiKey,
  createApiKey,
  createOrgToken,
  getOrgSettings,
  listApiKeys,
  listOrgTokens,
  type OrgToken,
  revokeApiKey,
  revokeOrgToken,
  setOrgSettings,
  updateApiKey,
} from '@/lib/client/console';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { inputClass, selectClass } from '@/components/ui/field';
import { relativeExpiry } from '@/lib/client/format';
import { ErrorNote, NameForm, ShownOnce, TableBox, when } from './common';
import { reload } from '@/lib/client/reload';

/** API keys and org tokens of the signed-in organization: create (shown once), list, revoke. */
export function KeysPage() {
  return (
    <div className="space-y-10">
      <ApiKeys />
      <OrgBudget />
      <NetworkNodes />
      <OrgTokens />
    </div>
  );
}

/** The organization's budget over all its keys (design §17): what it is, what the period spent, changed here. */
function OrgBudget() {
  const client = useQueryClient();
  const settings = useQuery({ queryKey: ['org-settings'], queryFn: getOrgSettings, refetchInterval: 15_000 });
  const [draft, setDraft] = useState<{ usd: string; period: Period } | null>(null);
  const budget = settings.data?.budget ?? null;
  const value = draft ?? { usd: budget?.usd ?? '', period: budget?.period ?? 'month' };
  const save = useMutation({
    mutationFn: () =>
      setOrgSettings(value.usd.trim() ? { budget_usd: value.usd.trim(), budget_period: value.period } : { budget_usd: null }),
    onSuccess: (next) => {
      client.setQueryData(['org-settings'], next);
      setDraft(null);
    },
  });
  return (
    <section aria-labelledby="org-budget" className="space-y-2">
      <h2 id="org-budget" className="text-lg font-semibold">
        Organization budget
      </h2>
      <p className="text-sm text-slate-600">
        A hard cap on what all of the organization&apos;s keys spend together, per UTC day, week or month or in total: a request that could
        cost more than what remains is refused (402). Each key may have a budget of its own too.
      </p>
      <div className="text-sm" data-testid="org-budget">
        {settings.data ? budget ? <Spend budget={budget} /> : 'No budget: spending is not capped.' : null}
      </div>
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <BudgetFields value={value} onChange={setDraft} />
        <Button type="submit" disabled={save.isPending || !settings.data}>
          Set budget
        </Button>
      </form>
      <ErrorNote error={settings.error ?? save.error} />
    </section>
  );
}

/** Where the organization's completions may go (design §20): other organizations' nodes admitted to the network, or not. */
function NetworkNodes() {
  const client = useQueryClient();
  const settings = useQuery({ queryKey: ['org-settings'], queryFn: getOrgSettings });
  // What the person chose, shown at once (a controlled checkbox drawn from the mutation's state would
  // snap back for a moment, until the mutation's pending state arrives), until the server has answered.
  const [chosen, setChosen] = useState<boolean | null>(null);
  const save = useMutation({
    mutationFn: (networkNodes: boolean) => setOrgSettings({ network_nodes: networkNodes }),
    onSuccess: (next) => client.setQueryData(['org-settings'], next),
    onSettled: () => setChosen(null),
  });
  return (
    <section aria-labelledby="network-nodes" className="space-y-2">
      <h2 id="network-nodes" className="text-lg font-semibold">
        Where completions go
      </h2>
      <p className="text-sm text-slate-600">
        Your keys&apos; completions are served by the instance&apos;s own providers and by your partners&apos; nodes. Other
        organizations&apos; nodes serve them only when the instance&apos;s administrator admitted those nodes to the network — and such a
        node sees the prompts it serves.
      </p>
      {/* Shown once the setting is known: a switch drawn before would show a state that may not be the organization's. */}
      {settings.data ? (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            name="network-nodes"
            checked={chosen ?? settings.data.network_nodes}
            disabled={save.isPending}
            onChange={(e) => {
              setChosen(e.target.checked);
              save.mutate(e.target.checked);
            }}
          />
          Allow nodes admitted to the network to serve this organization&apos;s completions
        </label>
      ) : (
        !settings.error && <p className="h-5 w-80 animate-pulse rounded bg-slate-100" aria-label="Loading the setting" />
      )}
      <ErrorNote error={settings.error ?? save.error} />
    </section>
  );
}

function ApiKeys() {
  const client = useQueryClient();
  // Always asked again on opening the page: last use and the day's requests change with every chat.
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: listApiKeys, staleTime: 0, refetchInterval: 15_000 });
  const [rpm, setRpm] = useState('');
  const [models, setModels] = useState('');
  const [expires, setExpires] = useState('');
  const [budget, setBudget] = useState<{ usd: string; period: Period }>({ usd: '', period: 'month' });
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);
  const create = useMutation({
    mutationFn: (name: string) =>
      createApiKey({
        name,
        ...(rpm ? { rpm: Number(rpm) } : {}),
        ...(modelList(models) ? { models: modelList(models) } : {}),
        ...(expires ? { expires_at: endOfDay(expires) } : {}),
        ...(budget.usd.trim() ? { budget_usd: budget.usd.trim(), budget_period: budget.period } : {}),
      }),
    onSuccess: () => {
      setRpm('');
      setModels('');
      setExpires('');
      setBudget({ usd: '', period: 'month' });
      void reload(client, ['api-keys']);
    },
  });
  return (
    <section aria-labelledby="api-keys" className="space-y-4">
      <h2 id="api-keys" className="text-lg font-semibold">
        API keys
      </h2>
      <p className="text-sm text-slate-600">
        For the model APIs — chat completions, Responses, Messages, embeddings — as <code>Authorization: Bearer sk_live_…</code> (or{' '}
        <code className="whitespace-nowrap">x-api-key</code>). OpenAI clients take this site&apos;s <code>/api/v1</code> as their base URL,
        Anthropic clients its <code>/api</code>.
      </p>
      <NameForm title="Create an API key" field="name" button="Create key" onCreate={create.mutateAsync}>
        <label className="block w-40 text-sm">
          <span className="font-medium">Requests a minute</span>
          <input
            name="rpm"
            type="number"
            min={1}
            max={1_000_000}
            placeholder="default"
            value={rpm}
            onChange={(e) => setRpm(e.target.value)}
            className={`${inputClass} mt-1`}
          />
        </label>
        <label className="block w-full text-sm sm:w-56">
          <span className="font-medium">Models it may use</span>
          <input
            name="models"
            placeholder="every model"
            value={models}
            onChange={(e) => setModels(e.target.value)}
            className={`${inputClass} mt-1`}
            title="Model names, separated by commas; empty: every model"
          />
        </label>
        <label className="block w-full text-sm sm:w-44">
          <span className="font-medium">Expires after</span>
          <input name="expires" type="date" value={expires} onChange={(e) => setExpires(e.target.value)} className={`${inputClass} mt-1`} />
        </label>
        <BudgetFields value={budget} onChange={setBudget} />
      </NameForm>
      <ErrorNote error={create.error} />
      {create.data && <ShownOnce label="API key" value={create.data.key} />}
      <ErrorNote error={keys.error} />
      <TableBox label="API keys">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th className="px-3 py-2">Key</th>
            <th className="px-3 py-2">Rate</th>
            <th className="px-3 py-2">Models</th>
            <th className="px-3 py-2">Expires</th>
            <th className="px-3 py-2">Budget</th>
            <th className="px-3 py-2">Created</th>
            <th className="px-3 py-2">Last used</th>
            <th className="px-3 py-2 text-right">Requests, 24 h</th>
            <th className="px-3 py-2" />
          </tr>
        </thead>
        <tbody>
          {(keys.data ?? []).map((k) => (
            <tr key={k.id} className={`border-b border-slate-100 ${k.revoked_at ? 'text-slate-400' : ''}`}>
              <td className="px-3 py-2 font-medium">{k.name ?? '—'}</td>
              <td className="px-3 py-2 font-mono text-xs">{k.prefix}…</td>
              <td className="px-3 py-2">{k.rpm ? `${k.rpm}/min` : 'default'}</td>
              <td className="px-3 py-2 text-xs [overflow-wrap:anywhere]" data-testid={`models-${k.name}`}>
                {k.models ? k.models.join(', ') : 'every model'}
              </td>
              <td className="px-3 py-2" data-testid={`expires-${k.name}`}>
                {k.expires_at === null ? 'never' : <Expiry at={k.expires_at} />}
              </td>
              <td className="px-3 py-2 text-xs" data-testid={`budget-${k.name}`}>
                {k.budget ? <Spend budget={k.budget} /> : 'none'}
              </td>
              <td className="px-3 py-2">{when(k.created_at)}</td>
              <td className="px-3 py-2">{when(k.last_used_at)}</td>
              <td className="px-3 py-2 text-right tabular-nums" data-testid={`requests-${k.name}`}>
                {k.requests_24h}
              </td>
              <td className="px-3 py-2 text-right">
                {k.revoked_at ? (
                  <span className="text-xs">revoked</span>
                ) : (
                  <span className="whitespace-nowrap">
                    <Button size="sm" variant="ghost" aria-label={`Change ${k.name ?? k.prefix}`} onClick={() => setEditing(k)}>
                      Change
                    </Button>
                    <Button size="sm" variant="ghost" aria-label={`Revoke ${k.name ?? k.prefix}`} onClick={() => setRevoking(k)}>
                      Revoke
                    </Button>
                  </span>
                )}
              </td>
            </tr>
          ))}
          {keys.data?.length === 0 && (
            <tr>
              <td colSpan={10} className="px-3 py-6 text-center text-slate-500">
                No API keys yet.
              </td>
            </tr>
          )}
        </tbody>
      </TableBox>
      {editing && (
        <ChangeKey
          apiKey={editing}
          onClose={() => {
            setEditing(null);
            void reload(client, ['api-keys']);
          }}
        />
      )}
      {revoking && (
        <ConfirmRevoke
          what={`the API key “${revoking.name ?? revoking.prefix}” (${revoking.prefix}…)`}
          consequence="Requests with it are refused from now on."
          onConfirm={() => revokeApiKey(revoking.id)}
          onClose={() => {
            setRevoking(null);
            void reload(client, ['api-keys']);
          }}
        />
      )}
    </section>
  );
}

/** `a, b ,c` as model names; nothing: every model (undefined). */
const modelList = (text: string) => {
  const names = text
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  return names.length ? names : undefined;
};
/** The end of the chosen day in the browser's time zone, as Unix seconds: the key works through that day. */
const endOfDay = (date: string) => Math.floor(new Date(`${date}T23:59:59`).getTime() / 1000);

/** A key's controls changed: the models it may use (empty: every model) and the day it expires after (empty: never). */
function ChangeKey({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const [models, setModels] = useState(apiKey.models?.join(', ') ?? '');
  const day = (s: number) => {
    const d = new Date(s * 1000);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  };
  const [expires, setExpires] = useState(apiKey.expires_at ? day(apiKey.expires_at) : '');
  const [budget, setBudget] = useState({ usd: apiKey.budget?.usd ?? '', period: apiKey.budget?.period ?? ('month' as Period) });
  const save = useMutation({
    mutationFn: () =>
      updateApiKey(apiKey.id, {
        models: modelList(models) ?? null,
        expires_at: expires ? endOfDay(expires) : null,
        ...(budget.usd.trim() ? { budget_usd: budget.usd.trim(), budget_period: budget.period } : { budget_usd: null }),
      }),
    onSuccess: onClose,
  });
  return (
    <Dialog title={`Change “${apiKey.name ?? apiKey.prefix}”`} onClose={onClose}>
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <label className="block text-sm">
          <span className="font-medium">Models it may use</span>
          <input value={models} onChange={(e) => setModels(e.target.value)} placeholder="every model" className={`${inputClass} mt-1`} />
          <span className="mt-1 block text-xs text-slate-500">
            Names separated by commas; empty: every model its organization is served.
          </span>
        </label>
        <label className="block text-sm">
          <span className="font-medium">Expires after</span>
          <input type="date" value={expires} onChange={(e) => setExpires(e.target.value)} className={`${inputClass} mt-1`} />
          <span className="mt-1 block text-xs text-slate-500">It works through that day (your time zone); empty: never.</span>
        </label>
        <div className="flex flex-wrap gap-3">
          <BudgetFields value={budget} onChange={setBudget} />
        </div>
        <p className="text-xs text-slate-500">
          A hard cap on what its requests cost (UTC calendar periods); a request that could cost more than what remains is refused (402).
          Empty: no budget.
        </p>
        <ErrorNote error={save.error} />
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={save.isPending}>
            Save
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

type Period = 'day' | 'week' | 'month' | 'total';
const PERIOD_LABEL: Record<Period, string> = { day: 'a day', week: 'a week', month: 'a month', total: 'in total' };

/** A budget's amount (USD; empty: none) and its period. */
function BudgetFields({
  value,
  onChange,
}: {
  value: { usd: string; period: Period };
  onChange: (v: { usd: string; period: Period }) => void;
}) {
  return (
    <>
      <label className="block w-full text-sm sm:w-36">
        <span className="font-medium">Budget, USD</span>
        <input
          name="budget_usd"
          inputMode="decimal"
          placeholder="none"
          value={value.usd}
          onChange={(e) => onChange({ ...value, usd: e.target.value })}
          className={`${inputClass} mt-1`}
        />
      </label>
      <label className="block w-full text-sm sm:w-32">
        <span className="block font-medium">Per</span>
        <select
          name="budget_period"
          aria-label="Budget period"
          value={value.period}
          onChange={(e) => onChange({ ...value, period: e.target.value as Period })}
          className={`${selectClass} mt-1`}
        >
          {(Object.keys(PERIOD_LABEL) as Period[]).map((p) => (
            <option key={p} value={p}>
              {p === 'total' ? 'in total' : p}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

/** What a budget's period under way spent against it, and when it is whole again. */
function Spend({ budget }: { budget: NonNullable<ApiKey['budget']> }) {
  const used = Math.min(1, Number(budget.spent) / Math.max(Number(budget.usd), Number.MIN_VALUE));
  return (
    <div className="min-w-28 space-y-1" title={budget.resets_at ? `whole again ${new Date(budget.resets_at).toLocaleString()}` : undefined}>
      <div className="tabular-nums">
        ${budget.spent} of ${budget.usd} {PERIOD_LABEL[budget.period]}
      </div>
      <div className="h-1.5 w-full rounded bg-slate-200" aria-hidden>
        <div className={`h-1.5 rounded ${used >= 0.9 ? 'bg-rose-600' : 'bg-emerald-600'}`} style={{ width: `${used * 100}%` }} />
      </div>
    </div>
  );
}

function Expiry({ at }: { at: number }) {
  const { text, expired } = relativeExpiry(at);
  return (
    <span className={expired ? 'font-medium text-rose-700' : ''} title={new Date(at * 1000).toLocaleString()}>
      {text}
    </span>
  );
}

function OrgTokens() {
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: ['org-tokens'], queryFn: listOrgTokens });
  const [revoking, setRevoking] = useState<OrgToken | null>(null);
  const create = useMutation({
    mutationFn: (name: string) => createOrgToken({ name }),
    onSuccess: () => void reload(client, ['org-tokens']),
  });
  return (
    <section aria-labelledby="org-tokens" className="space-y-4">
      <h2 id="org-tokens" className="text-lg font-semibold">
        Organization tokens
      </h2>
      <p className="text-sm text-slate-600">For the statistics and alias APIs, and to sign in here. Revoking one ends its sessions.</p>
      <NameForm title="Create an org token" field="token-name" button="Create token" onCreate={create.mutateAsync} />
      <ErrorNote error={create.error} />
      {create.data && <ShownOnce label="Org token" value={create.data.token} />}
      <TableBox label="Organization tokens">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">Name</th>
            <th className="px-3 py-2">Token</th>
            <th className="px-3 py-2">Created</th>
            <th className="px-3 py-2" />
          </tr>
        </thead>
        <tbody>
          {(tokens.data ?? []).map((t) => (
            <tr key={t.id} className={`border-b border-slate-100 ${t.revoked_at ? 'text-slate-400' : ''}`}>
              <td className="px-3 py-2 font-medium">{t.name ?? '—'}</td>
              <td className="px-3 py-2 font-mono text-xs">{t.prefix}…</td>
              <td className="px-3 py-2">{when(t.created_at)}</td>
              <td className="px-3 py-2 text-right">
                {t.revoked_at ? (
                  <span className="text-xs">revoked</span>
                ) : (
                  <Button size="sm" variant="ghost" aria-label={`Revoke token ${t.name ?? t.prefix}`} onClick={() => setRevoking(t)}>
                    Revoke
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </TableBox>
      {revoking && (
        <ConfirmRevoke
          what={`the org token “${revoking.name ?? revoking.prefix}” (${revoking.prefix}…)`}
          consequence="Calls with it are refused and the sessions signed in with it end — this one too, if you signed in with it."
          onConfirm={() => revokeOrgToken(revoking.id)}
          onClose={() => {
            setRevoking(null);
            void client.invalidateQueries();
          }}
        />
      )}
    </section>
  );
}

export function ConfirmRevoke({
  what,
  consequence,
  onConfirm,
  onClose,
}: {
  what: string;
  consequence: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}) {
  const run = useMutation({ mutationFn: onConfirm, onSuccess: onClose });
  return (
    <Dialog title="Revoke?" onClose={onClose}>
      <p className="text-sm">
        Revoke {what}? {consequence}
      </p>
      <ErrorNote error={run.error} />
      <div className="mt-4 flex justify-end gap-2">
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="danger" disabled={run.isPending} onClick={() => run.mutate()}>
          Revoke
        </Button>
      </div>
    </Dialog>
  );
}
