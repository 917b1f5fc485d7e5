'use client';

import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { listApiKeys, listRequests, type RequestEntry } from '@/lib/client/console';
import { useUrlState } from '@/lib/client/url-state';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { inputClass, selectClass } from '@/components/ui/field';
import { ErrorNote, TableBox, when } from './common';

/** How far back the log is read, by the `range` of the URL. */
const RANGES: Record<string, { label: string; ms: number }> = {
  '1h': { label: 'the last hour', ms: 3_600_000 },
  '24h': { label: 'the last 24 hours', ms: 86_400_000 },
  '7d': { label: 'the last 7 days', ms: 7 * 86_400_000 },
  '14d': { label: 'the last 14 days', ms: 14 * 86_400_000 },
};
/** The API a request came by, by its path (design §16); another path is shown as it is. */
const APIS: Record<string, string> = {
  '/api/v1/chat/completions': 'Chat',
  '/api/v1/responses': 'Responses',
  '/api/v1/messages': 'Messages',
  '/api/v1/embeddings': 'Embeddings',
};
const apiOf = (e: RequestEntry) => `${APIS[e.endpoint] ?? e.endpoint}${e.stream ? ' · streamed' : ''}`;

const STATUSES: Record<string, string> = {
  '': 'any status',
  '2xx': '2xx (served)',
  '4xx': '4xx (refused)',
  '5xx': '5xx (failed)',
  error: 'with an error',
};

/**
 * The request log (design §18): each completion and embedding of the organization's keys — when, the
 * key, the model, the API it came by (streamed or not), who served it, the status, latency, time to
 * first token, tokens, cost and error — newest first; filters (key, API, status, model, request id) in
 * the URL (a shared link shows the same rows), a request's detail with its trace id (`?request=`),
 * older pages on demand, CSV of what is shown.
 */
export function RequestsPage() {
  const [view, setView] = useUrlState({ key: '', api: '', model: '', status: '', id: '', range: '24h', request: '' });
  const range = RANGES[view.range] ?? RANGES['24h']!;
  const [since] = useState(() => Date.now());
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: listApiKeys });
  const filters = {
    apiKeyId: view.key || undefined,
    model: view.model || undefined,
    endpoint: view.api || undefined,
    status: view.status || undefined,
    requestId: view.id || undefined,
  };
  const log = useInfiniteQuery({
    queryKey: ['requests', filters, view.range],
    queryFn: ({ pageParam }) => listRequests({ ...filters, since: since - range.ms, after: pageParam ?? undefined }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.after,
    staleTime: 0,
    refetchInterval: 15_000,
  });
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
  const keyLabel = (id: string) => {
    const k = keys.data?.find((k) => k.id === id);
    return k ? (k.name ?? k.prefix) : id;
  };
  const selected = view.request ? entries.find((e) => e.request_id === view.request) : undefined;
  return (
    <div className="space-y-3">
      <form
        className="flex flex-wrap items-end gap-3 text-sm"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          setView({ model: String(form.get('model') ?? '').trim() || null, id: String(form.get('id') ?? '').trim() || null });
        }}
      >
        <Picker
          label="Period"
          value={view.range}
          options={Object.entries(RANGES).map(([k, r]) => [k, r.label])}
          onChange={(range) => setView({ range })}
        />
        <Picker
          label="Key"
          value={view.key}
          options={[['', 'every key'], ...(keys.data ?? []).map((k): [string, string] => [k.id, k.name ?? k.prefix])]}
          onChange={(key) => setView({ key: key || null })}
        />
        <Picker
          label="API"
          value={view.api}
          options={[['', 'every API'], ...Object.entries(APIS)]}
          onChange={(api) => setView({ api: api || null })}
        />
        <Picker
          label="Status"
          value={view.status}
          options={Object.entries(STATUSES)}
          onChange={(status) => setView({ status: status || null })}
        />
        <label className="flex flex-col gap-1">
          <span className="font-medium">Model</span>
          <input name="model" aria-label="Model" defaultValue={view.model} key={view.model} className={`${inputClass} sm:w-44`} />
        </label>
        <label className="flex flex-col gap-1">
          <span className="font-medium">Request id</span>
          <input name="id" aria-label="Request id" defaultValue={view.id} key={view.id} className={`${inputClass} sm:w-64`} />
        </label>
        <Button size="sm" type="submit">
          Filter
        </Button>
        <Button size="sm" type="button" className="sm:ml-auto" disabled={!entries.length} onClick={() => download(entries)}>
          Export CSV
        </Button>
      </form>
      <ErrorNote error={log.error} />
      {selected && <RequestDetail entry={selected} keyLabel={keyLabel(selected.api_key_id)} onClose={() => setView({ request: null })} />}
      <TableBox label="Requests">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase text-slate-500">
          <tr>
            <th className="px-3 py-2">When</th>
            <th className="px-3 py-2">Model</th>
            <th className="px-3 py-2">API</th>
            <th className="px-3 py-2">Status</th>
            <th className="px-3 py-2">Provider</th>
            <th className="px-3 py-2 text-right">Latency</th>
            <th className="px-3 py-2 text-right">TTFT</th>
            <th className="px-3 py-2 text-right">Tokens in / out</th>
            <th className="px-3 py-2 text-right">Cost USD</th>
            <th className="px-3 py-2">Key</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={`${e.request_id}-${e.created_at}`} className="border-b border-slate-100 align-top">
              <td className="whitespace-nowrap px-3 py-2">
                <button
                  type="button"
                  className="text-left text-indigo-700 underline-offset-2 hover:underline"
                  aria-label={`Request ${e.request_id}`}
                  onClick={() => setView({ request: e.request_id })}
                >
                  {when(e.created_at)}
                </button>
              </td>
              <td className="px-3 py-2 font-mono text-xs [overflow-wrap:anywhere]">{e.model}</td>
              <td className="whitespace-nowrap px-3 py-2">{apiOf(e)}</td>
              <td className="px-3 py-2">
                <StatusBadge entry={e} />
              </td>
              <td className="px-3 py-2 [overflow-wrap:anywhere]">{e.provider ?? '—'}</td>
              <td className="px-3 py-2 text-right tabular-nums">{e.latency_ms} ms</td>
              <td className="px-3 py-2 text-right tabular-nums">{e.ttft_ms === null ? '—' : `${e.ttft_ms} ms`}</td>
              <td className="px-3 py-2 text-right tabular-nums">
                {e.prompt_tokens} / {e.completion_tokens}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{e.cost ? e.cost.toFixed(6) : '0'}</td>
              <td className="px-3 py-2 [overflow-wrap:anywhere]">{keyLabel(e.api_key_id)}</td>
            </tr>
          ))}
          {log.data && !entries.length && (
            <tr>
              <td colSpan={10} className="px-3 py-6 text-center text-slate-500">
                No requests in {range.label}
                {view.key || view.api || view.model || view.status || view.id ? ' that match the filters' : ''}.
              </td>
            </tr>
          )}
        </tbody>
      </TableBox>
      {log.hasNextPage && (
        <Button size="sm" onClick={() => log.fetchNextPage()} disabled={log.isFetchingNextPage}>
          Older requests
        </Button>
      )}
    </div>
  );
}

/** One of the filters: a labelled choice among `options` ([value, label] pairs). */
function Picker(props: { label: string; value: string; options: [string, string][]; onChange: (value: string) => void }) {
  return (
    <label className="flex flex-col gap-1">
      <span className="font-medium">{props.label}</span>
      <select aria-label={props.label} value={props.value} onChange={(e) => props.onChange(e.target.value)} className={selectClass}>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

function StatusBadge({ entry }: { entry: RequestEntry }) {
  const bad = entry.status >= 400 || entry.error;
  return (
    <span className={`inline-flex flex-wrap items-baseline gap-1 ${bad ? 'text-rose-700' : 'text-emerald-700'}`}>
      <span className="font-medium tabular-nums">{entry.status}</span>
      {entry.error && <span className="font-mono text-xs">{entry.error}</span>}
    </span>
  );
}

/** One request's record, whole: what an operator quotes when a client says "slow" or "wrong". */
function RequestDetail({ entry: e, keyLabel, onClose }: { entry: RequestEntry; keyLabel: string; onClose: () => void }) {
  const rows: [string, React.ReactNode][] = [
    ['Request id', <Copyable key="id" value={e.request_id} label="Copy the request id" />],
    ['Trace id', e.trace_id ? <Copyable key="trace" value={e.trace_id} label="Copy the trace id" /> : 'not traced (no OTLP endpoint set)'],
    ['When', new Date(e.created_at).toISOString()],
    ['Endpoint', e.endpoint],
    ['Key', keyLabel],
    ['Model', e.model],
    ['Provider', e.provider ?? '—'],
    ['Status', <StatusBadge key="status" entry={e} />],
    ['Streamed', e.stream ? 'yes' : 'no'],
    ['Latency', `${e.latency_ms} ms`],
    ['Time to first token', e.ttft_ms === null ? '—' : `${e.ttft_ms} ms`],
    ['Tokens', `${e.prompt_tokens} in, ${e.completion_tokens} out`],
    ['Cost', `${e.cost} USD`],
  ];
  return (
    <section aria-label="Request detail" className="space-y-2 rounded-md border border-slate-200 bg-surface p-3 text-sm shadow-sm">
      <div className="flex items-center justify-between gap-2">
        <h2 className="font-semibold">Request {e.request_id}</h2>
        <Button size="sm" onClick={onClose}>
          Close
        </Button>
      </div>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[12rem_1fr]">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-slate-500">{k}</dt>
            <dd className="min-w-0 [overflow-wrap:anywhere]">{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function Copyable({ value, label }: { value: string; label: string }) {
  return (
    <span className="inline-flex min-w-0 items-center gap-2">
      <code className="min-w-0 font-mono text-xs [overflow-wrap:anywhere]">{value}</code>
      <CopyButton value={value} label={label} />
    </span>
  );
}

/** The entries shown, as CSV. */
export function requestsCsv(entries: RequestEntry[]): string {
  const head = [
    'created_at',
    'request_id',
    'api_key_id',
    'endpoint',
    'model',
    'provider',
    'status',
    'stream',
    'latency_ms',
    'ttft_ms',
    'prompt_tokens',
    'completion_tokens',
    'cost_usd',
    'error',
    'trace_id',
  ] as const;
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  const lines = entries.map((e) => head.map((h) => cell(h === 'cost_usd' ? e.cost : (e as Record<string, unknown>)[h])).join(','));
  return [head.join(','), ...lines].join('\n') + '\n';
}

function download(entries: RequestEntry[]) {
  const url = URL.createObjectURL(new Blob([requestsCsv(entries)], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = 'triad-requests.csv';
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
