'use client';

import { useQuery } from '@tanstack/react-query';
import type { ApiError } from '@/lib/client/api';
import { listModels } from '@/lib/client/chat';
import { Field, inputClass } from '@/components/ui/field';
import { type ChatSettings, type ResponseFormat, schemaOf } from './use-chat';

/** `triad-demo — 2/3 providers up`: the model and the health of the providers serving it. */
function modelLabel(m: { id: string; providers?: { total: number; healthy: number } }) {
  if (!m.providers) return m.id;
  return `${m.id} — ${m.providers.healthy}/${m.providers.total} provider${m.providers.total === 1 ? '' : 's'} up`;
}

/** Model (from GET /api/v1/models), system prompt, temperature, max tokens, a tool the model may call, the response format. */
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
              {p.healthy} of {p.total} provider{p.total === 1 ? '' : 's'} in service
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

/** One tool, defined by its name, description and parameters (a JSON schema); the model's calls of it are answered by hand. */
function ToolSettings({ value, onChange }: { value: ChatSettings; onChange: (next: ChatSettings) => void }) {
  const tool = value.tool;
  const set = (patch: Partial<ChatSettings['tool']>) => onChange({ ...value, tool: { ...tool, ...patch } });
  return (
    <fieldset className="space-y-2 text-sm">
      <label className="flex items-center gap-2 font-medium">
        <input type="checkbox" checked={tool.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        Offer a tool
      </label>
      {tool.enabled && (
        <>
          <Field label="Tool name">
            <input aria-label="Tool name" value={tool.name} onChange={(e) => set({ name: e.target.value })} className={inputClass} />
          </Field>
          <Field label="Tool description">
            <input
              aria-label="Tool description"
              value={tool.description}
              onChange={(e) => set({ description: e.target.value })}
              className={inputClass}
            />
          </Field>
          <SchemaBox label="Tool parameters (JSON schema)" value={tool.parameters} onChange={(parameters) => set({ parameters })} />
        </>
      )}
    </fieldset>
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
