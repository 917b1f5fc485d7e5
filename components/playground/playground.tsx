'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Usage } from '@/lib/chat/schema';
import type { ApiError } from '@/lib/client/api';
import { type ChatBody, ChatApiError, curlCommand, listModels, streamChat } from '@/lib/client/chat';
import { useCredentials } from '@/lib/client/credentials';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { inputClass, NeedsCredential } from '@/components/ui/field';
import { Markdown } from './markdown';

type Stats = { ttftMs: number | null; tokensPerS: number | null; usage: Usage | null; finish: string | null; stopped: boolean };
type Turn = { role: 'user' | 'assistant'; content: string; stats?: Stats; error?: string };

/** What a person should read for a failed request. */
function explain(e: unknown): string {
  if (e instanceof ChatApiError) {
    if (e.status === 401) return 'The API key was not accepted. Check it under Credentials.';
    if (e.status === 429) return `Rate limit reached for this API key.${e.retryAfterS ? ` Retry in ${e.retryAfterS} s.` : ''}`;
    if (e.status === 404) return `${e.message}`;
    if (e.status === 502 || e.status === 504) return `The model server failed: ${e.message}`;
    return e.message;
  }
  return (e as Error)?.message ?? String(e);
}

export function Playground() {
  const { apiKey } = useCredentials();
  const [model, setModel] = useState('triad-guide');
  const [system, setSystem] = useState('You are a helpful assistant.');
  const [temperature, setTemperature] = useState(0.7);
  const [maxTokens, setMaxTokens] = useState(512);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const endRef = useRef<HTMLDivElement>(null);

  const models = useQuery({ queryKey: ['models', apiKey], queryFn: () => listModels(apiKey), enabled: !!apiKey, retry: false });

  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [turns]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && abortRef.current?.abort();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const bodyFor = (history: Turn[]): ChatBody => ({
    model,
    messages: [
      ...(system.trim() ? [{ role: 'system' as const, content: system }] : []),
      ...history.filter((t) => !t.error).map((t) => ({ role: t.role, content: t.content })),
    ],
    temperature,
    max_tokens: maxTokens,
  });

  async function run(history: Turn[]) {
    const controller = new AbortController();
    abortRef.current = controller;
    setBusy(true);
    setTurns([...history, { role: 'assistant', content: '' }]);
    const update = (patch: Partial<Turn>) => setTurns((all) => [...all.slice(0, -1), { ...all.at(-1)!, ...patch }]);
    try {
      const r = await streamChat(apiKey, bodyFor(history), { signal: controller.signal, onDelta: (content) => update({ content }) });
      const genMs = r.ttftMs === null ? null : r.totalMs - r.ttftMs;
      update({
        content: r.content,
        stats: {
          ttftMs: r.ttftMs,
          tokensPerS: r.usage && genMs && genMs > 0 ? (r.usage.completion_tokens / genMs) * 1000 : null,
          usage: r.usage,
          finish: r.finish,
          stopped: r.aborted,
        },
      });
    } catch (e) {
      update({ error: explain(e) });
    } finally {
      abortRef.current = null;
      setBusy(false);
    }
  }

  function send() {
    const text = draft.trim();
    if (!text || busy) return;
    setDraft('');
    void run([...turns.filter((t) => !t.error), { role: 'user', content: text }]);
  }

  function regenerate() {
    const lastUser = turns.map((t) => t.role).lastIndexOf('user');
    if (lastUser >= 0 && !busy) void run(turns.slice(0, lastUser + 1));
  }

  if (!apiKey) return <NeedsCredential what="an API key" />;
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  const last = turns.at(-1);

  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
      <section className="flex min-h-[60vh] min-w-0 flex-col rounded-lg border border-slate-200 bg-white" aria-label="Conversation">
        <div className="flex-1 space-y-4 overflow-y-auto p-4" data-testid="conversation">
          {turns.length === 0 && (
            <p className="text-sm text-slate-500">
              Ask something. <strong>triad-guide</strong> answers from Triad&apos;s own documentation; models of an upstream server
              (TRIAD_UPSTREAM_URL) appear in the list too.
            </p>
          )}
          {turns.map((t, i) => (
            <div
              key={i}
              data-testid={`turn-${t.role}`}
              className={
                t.role === 'user' ? 'ml-auto max-w-[85%] rounded-lg bg-indigo-50 px-3 py-2 text-sm whitespace-pre-wrap' : 'max-w-full'
              }
            >
              {t.role === 'user' ? (
                t.content
              ) : (
                <div className="space-y-1">
                  {t.content ? (
                    <Markdown text={t.content} />
                  ) : (
                    !t.error && <span className="animate-pulse text-sm text-slate-400">Thinking…</span>
                  )}
                  {t.error && (
                    <p role="alert" className="rounded-md bg-rose-50 p-2 text-sm text-rose-800">
                      {t.error}
                    </p>
                  )}
                  {t.stats && (
                    <p data-testid="reply-stats" className="text-xs text-slate-500">
                      {t.stats.stopped && <span className="mr-2 font-medium text-amber-700">stopped</span>}
                      {t.stats.ttftMs !== null && `first token ${Math.round(t.stats.ttftMs)} ms · `}
                      {t.stats.tokensPerS !== null && `${t.stats.tokensPerS.toFixed(1)} tokens/s · `}
                      {t.stats.usage && `${t.stats.usage.prompt_tokens} prompt + ${t.stats.usage.completion_tokens} completion tokens`}
                      {t.stats.finish === 'length' && ' · cut at max tokens'}
                    </p>
                  )}
                </div>
              )}
            </div>
          ))}
          <div ref={endRef} />
        </div>
        <form
          className="flex gap-2 border-t border-slate-200 p-3"
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
        >
          <textarea
            aria-label="Message"
            rows={2}
            value={draft}
            placeholder="Message (Enter to send, Shift+Enter for a new line, Esc to stop)"
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                send();
              }
            }}
            className={`${inputClass} resize-y`}
          />
          <div className="flex flex-col gap-1">
            {busy ? (
              <Button variant="danger" onClick={() => abortRef.current?.abort()}>
                Stop
              </Button>
            ) : (
              <Button type="submit" variant="primary" disabled={!draft.trim()}>
                Send
              </Button>
            )}
            <Button size="sm" onClick={regenerate} disabled={busy || !turns.some((t) => t.role === 'user')}>
              Regenerate
            </Button>
          </div>
        </form>
      </section>

      <aside className="space-y-4" aria-label="Settings">
        <label className="block text-sm">
          <span className="font-medium">Model</span>
          <select aria-label="Model" value={model} onChange={(e) => setModel(e.target.value)} className={`${inputClass} mt-1`}>
            {(models.data ?? [{ id: 'triad-guide' }]).map((m) => (
              <option key={m.id} value={m.id}>
                {m.id}
              </option>
            ))}
          </select>
          {models.isError && <span className="mt-1 block text-xs text-rose-700">{explainModels(models.error as ApiError)}</span>}
        </label>
        <label className="block text-sm">
          <span className="font-medium">System prompt</span>
          <textarea
            aria-label="System prompt"
            rows={4}
            value={system}
            onChange={(e) => setSystem(e.target.value)}
            className={`${inputClass} mt-1`}
          />
        </label>
        <label className="block text-sm">
          <span className="flex justify-between font-medium">
            Temperature <span className="tabular-nums text-slate-500">{temperature.toFixed(1)}</span>
          </span>
          <input
            aria-label="Temperature"
            type="range"
            min={0}
            max={2}
            step={0.1}
            value={temperature}
            onChange={(e) => setTemperature(Number(e.target.value))}
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
            value={maxTokens}
            onChange={(e) => setMaxTokens(Math.max(1, Number(e.target.value) || 1))}
            className={`${inputClass} mt-1`}
          />
        </label>
        <div className="flex flex-wrap gap-2">
          <CopyButton value={curlCommand(origin, bodyFor(last?.role === 'assistant' ? turns.slice(0, -1) : turns))} label="Copy as curl" />
          <span className="self-center text-xs text-slate-500">as curl (key from $TRIAD_API_KEY)</span>
          <Button size="sm" variant="ghost" disabled={busy || turns.length === 0} onClick={() => setTurns([])}>
            Clear chat
          </Button>
        </div>
      </aside>
    </div>
  );
}

function explainModels(e: ApiError) {
  return e.status === 401 ? 'The API key was not accepted. Check it under Credentials.' : `Could not list models: ${e.explanation}`;
}
