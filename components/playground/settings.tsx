'use client';

import { useQuery } from '@tanstack/react-query';
import type { ApiError } from '@/lib/client/api';
import { listModels } from '@/lib/client/chat';
import { countOf } from '@/lib/client/format';
import { Button } from '@/components/ui/button';
import { Field, inputClass } from '@/components/ui/field';
import {
  type ChatSettings,
  NEW_TOOL,
  type ResponseFormat,
  type Routing,
  type Sampling,
  samplingOf,
  schemaOf,
  type ToolDef,
  WEATHER_TOOL,
} from './use-chat';

/** `triad-demo — 2/3 providers up`: the model and the health of the providers serving it. */
function modelLabel(m: { id: string; providers?: { total: number; healthy: number } }) {
  if (!m.providers) return m.id;
  return `${m.id} — ${m.providers.healthy}/${countOf(m.providers.total, 'provider')} up`;
}

/** Model (from GET /api/v1/models), system prompt, temperature, max tokens, sampling, tools the model may call, the response format. */
export function Settings({ value, onChange }: { value: ChatSettings; onChange: (next: ChatSettings) => void }) {
  const models = useQuery({ queryKey: ['models'], queryFn: () => listModels(), retry: false });
  const set = (patch: Partial<ChatSettings>) => onChange({ ...value, ...patch });
  return (
    <>
      <label className="block text-sm">
        <span className="font-medium">Model</span>
        <select aria-label="Model" value={value.model} onChange={(e) => set({ model: e.target.value })} className={`${inputClass} mt-1`}>
          {(models.data ?? [{ id: 'triad-guide' }]).map((m) => (
            <option key={m.id} value={m.id}>
              {modelLabel(m)}
            </option>
          ))}
        </select>
        {(() => {
          const p = models.data?.find((m) => m.id === value.model)?.providers;
          if (!p) return null;
          return (
            <span data-testid="model-providers" className={`mt-1 block text-xs ${p.healthy ? 'text-slate-500' : 'text-rose-700'}`}>
              {p.healthy} of {countOf(p.total, 'provider')} in service
            </span>
          );
        })()}
        {models.isError && <span className="mt-1 block text-xs text-rose-700">{explainModels(models.error as ApiError)}</span>}
      </label>
      <label className="block text-sm">
        <span className="font-medium">System prompt</span>
        <textarea
          aria-label="System prompt"
          rows={4}
          value={value.system}
          onChange={(e) => set({ system: e.target.value })}
          className={`${inputClass} mt-1`}
        />
      </label>
      <label className="block text-sm">
        <span className="flex justify-between font-medium">
          Temperature <span className="tabular-nums text-slate-500">{value.temperature.toFixed(1)}</span>
        </span>
        <input
          aria-label="Temperature"
          type="range"
          min={0}
          max={2}
          step={0.1}
          value={value.temperature}
          onChange={(e) => set({ temperature: Number(e.target.value) })}
          className="w-full"
        />
      </label>
      <label className="block text-sm">
        <span className="font-medium">Max tokens</span>
        <input
          aria-label="Max tokens"
          type="number"
          min={1}
          max={32768}
          value={value.maxTokens}
          onChange={(e) => set({ maxTokens: Math.max(1, Number(e.target.value) || 1) })}
          className={`${inputClass} mt-1`}
        />
      </label>
      <SamplingSettings value={value} onChange={onChange} />
      <RoutingSettings value={value} onChange={onChange} />
      <ToolSettings value={value} onChange={onChange} />
      <label className="block text-sm">
        <span className="font-medium">Response format</span>
        <select
          aria-label="Response format"
          value={value.responseFormat}
          onChange={(e) => set({ responseFormat: e.target.value as ResponseFormat })}
          className={`${inputClass} mt-1`}
        >
          <option value="text">Text</option>
          <option value="json_object">JSON object</option>
          <option value="json_schema">JSON schema</option>
        </select>
      </label>
      {value.responseFormat === 'json_schema' && (
        <SchemaBox label="Response JSON schema" value={value.schema} onChange={(schema) => set({ schema })} />
      )}
    </>
  );
}

/** Tools the model may call, each defined by its name, description and parameters (a JSON schema); their calls are answered by hand. */
function ToolSettings({ value, onChange }: { value: ChatSettings; onChange: (next: ChatSettings) => void }) {
  const tools = value.tools;
  const setTools = (patch: Partial<ChatSettings['tools']>) => onChange({ ...value, tools: { ...tools, ...patch } });
  const setTool = (i: number, patch: Partial<ToolDef>) => setTools({ list: tools.list.map((t, j) => (j === i ? { ...t, ...patch } : t)) });
  return (
    <fieldset className="space-y-2 text-sm">
      <label className="flex items-center gap-2 font-medium">
        <input type="checkbox" checked={tools.enabled} onChange={(e) => setTools({ enabled: e.target.checked })} />
        Offer tools
      </label>
      {tools.enabled && (
        <>
          {tools.list.map((tool, i) => (
            <fieldset key={i} aria-label={`Tool ${i + 1}`} className="space-y-2 rounded-md border border-slate-200 p-2">
              <div className="flex items-center justify-between text-xs font-medium text-slate-500">
                Tool {i + 1}
                <Button
                  size="sm"
                  variant="ghost"
                  aria-label={`Remove tool ${i + 1}`}
                  onClick={() => setTools({ list: tools.list.filter((_, j) => j !== i) })}
                >
                  Remove
                </Button>
              </div>
              <Field label="Tool name" error={tool.name.trim() ? undefined : 'Not offered until it has a name'}>
                <input
                  aria-label="Tool name"
                  value={tool.name}
                  onChange={(e) => setTool(i, { name: e.target.value })}
                  className={inputClass}
                />
              </Field>
              <Field label="Tool description">
                <input
                  aria-label="Tool description"
                  value={tool.description}
                  onChange={(e) => setTool(i, { description: e.target.value })}
                  className={inputClass}
                />
              </Field>
              <SchemaBox
                label="Tool parameters (JSON schema)"
                value={tool.parameters}
                onChange={(parameters) => setTool(i, { parameters })}
              />
            </fieldset>
          ))}
          <Button size="sm" onClick={() => setTools({ list: [...tools.list, { ...(tools.list.length ? NEW_TOOL : WEATHER_TOOL) }] })}>
            Add a tool
          </Button>
        </>
      )}
    </fieldset>
  );
}

/** Routing preferences (design §17): which provider serves, by price, latency or throughput, or named; fallback models. */
function RoutingSettings({ value, onChange }: { value: ChatSettings; onChange: (next: ChatSettings) => void }) {
  const r = value.routing ?? { sort: '', only: '', fallbacks: '' };
  const set = (patch: Partial<Routing>) => onChange({ ...value, routing: { ...r, ...patch } });
  const count = [r.sort, r.only.trim(), r.fallbacks.trim()].filter(Boolean).length;
  return (
    <details className="text-sm" open={count > 0 || undefined}>
      <summary className="cursor-pointer font-medium">Routing{count ? ` (${count} set)` : ''}</summary>
      <div className="mt-2 space-y-2">
        <label className="block">
          <span className="text-xs font-medium">Prefer</span>
          <select
            aria-label="Prefer"
            value={r.sort}
            onChange={(e) => set({ sort: e.target.value as Routing['sort'] })}
            className={`${inputClass} mt-0.5`}
          >
            <option value="">the usual share (weights)</option>
            <option value="price">the cheapest provider</option>
            <option value="latency">the quickest to answer</option>
            <option value="throughput">the most tokens a second</option>
          </select>
        </label>
        <label className="block">
          <span className="text-xs font-medium">Only these providers</span>
          <input
            aria-label="Only these providers"
            value={r.only}
            placeholder="any (names, comma-separated)"
            onChange={(e) => set({ only: e.target.value })}
            className={`${inputClass} mt-0.5`}
          />
        </label>
        <label className="block">
          <span className="text-xs font-medium">Fallbacks, tried in turn</span>
          <input
            aria-label="Fallbacks"
            value={r.fallbacks}
            placeholder="none (other models, comma-separated)"
            onChange={(e) => set({ fallbacks: e.target.value })}
            className={`${inputClass} mt-0.5`}
          />
        </label>
        <p className="text-xs text-slate-500">
          Sent as <code>provider</code> and <code>models</code>; Triad routes by them and never passes them on.
        </p>
      </div>
    </details>
  );
}

/** top_p, stop sequences, seed and penalties: blank ones are not sent (the model's defaults). */
function SamplingSettings({ value, onChange }: { value: ChatSettings; onChange: (next: ChatSettings) => void }) {
  const s = value.sampling;
  const set = (patch: Partial<Sampling>) => onChange({ ...value, sampling: { ...s, ...patch } });
  const { problems } = samplingOf(s);
  const box = (label: string, key: keyof Sampling, placeholder: string) => (
    <label className="block">
      <span className="text-xs font-medium">{label}</span>
      <input
        aria-label={label}
        inputMode="decimal"
        value={s[key]}
        placeholder={placeholder}
        onChange={(e) => set({ [key]: e.target.value })}
        className={`${inputClass} mt-0.5`}
      />
    </label>
  );
  const set_ = Object.values(s).filter((v) => v.trim()).length;
  return (
    <details className="text-sm" open={set_ > 0 || undefined}>
      <summary className="cursor-pointer font-medium">Sampling{set_ ? ` (${set_} set)` : ''}</summary>
      <div className="mt-2 grid grid-cols-2 gap-2">
        {box('top_p', 'topP', '0.01–1')}
        {box('seed', 'seed', 'whole number')}
        {box('frequency_penalty', 'frequencyPenalty', '−2 to 2')}
        {box('presence_penalty', 'presencePenalty', '−2 to 2')}
        <label className="col-span-2 block">
          <span className="text-xs font-medium">Stop sequences (one a line, up to 4)</span>
          <textarea
            aria-label="Stop sequences"
            rows={2}
            value={s.stop}
            onChange={(e) => set({ stop: e.target.value })}
            className={`${inputClass} mt-0.5 font-mono text-xs`}
          />
        </label>
      </div>
      {problems.length > 0 && (
        <p role="alert" className="mt-1 text-xs text-rose-700">
          Not sent: {problems.join('; ')}.
        </p>
      )}
    </details>
  );
}

function SchemaBox({ label, value, onChange }: { label: string; value: string; onChange: (text: string) => void }) {
  const parsed = schemaOf(value);
  return (
    <label className="block text-sm">
      <span className="font-medium">{label}</span>
      <textarea
        aria-label={label}
        rows={6}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        className={`${inputClass} mt-1 font-mono text-xs`}
      />
      {'error' in parsed && <span className="mt-1 block text-xs text-rose-700">Not sent until it is a JSON schema: {parsed.error}</span>}
    </label>
  );
}

function explainModels(e: ApiError) {
  return e.status === 401 ? 'The session has ended. Sign in again.' : `Could not list models: ${e.explanation}`;
}
