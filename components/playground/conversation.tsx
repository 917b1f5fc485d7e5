'use client';

import { useEffect, useRef, useState } from 'react';
import type { ToolCall } from '@/lib/client/chat';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/field';
import { Markdown } from './markdown';
import type { ReplyStats, Turn } from './use-chat';

type AssistantTurn = Extract<Turn, { role: 'assistant' }>;

/**
 * The turns of a conversation, scrolled to the newest: messages with their images, a reply's tool
 * calls (name and arguments), and the results given for them. The last reply's tool calls are
 * answered here, by hand (`onAnswer`).
 */
export function Conversation({
  turns,
  busy,
  onAnswer,
}: {
  turns: Turn[];
  busy: boolean;
  onAnswer: (results: Record<string, string>) => void;
}) {
  const endRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    endRef.current?.scrollIntoView({ block: 'end' });
  }, [turns]);
  return (
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
            t.role === 'user'
              ? 'ml-auto max-w-[85%] rounded-lg bg-indigo-50 px-3 py-2 text-sm whitespace-pre-wrap'
              : t.role === 'tool'
                ? 'max-w-full rounded-md border border-dashed border-slate-300 px-3 py-2 text-sm'
                : 'max-w-full'
          }
        >
          {t.role === 'user' && (
            <>
              {t.content}
              {t.images?.map((url, j) => (
                // eslint-disable-next-line @next/next/no-img-element -- a data: URL the person attached
                <img key={j} src={url} alt={`attached image ${j + 1}`} className="mt-2 max-h-40 rounded border border-slate-200" />
              ))}
            </>
          )}
          {t.role === 'tool' && (
            <>
              <span className="text-xs font-medium text-slate-500">Result of {t.name}: </span>
              <span className="font-mono whitespace-pre-wrap">{t.content}</span>
            </>
          )}
          {t.role === 'assistant' && <Reply turn={t} answerable={i === turns.length - 1 && !busy && !t.error} onAnswer={onAnswer} />}
        </div>
      ))}
      <div ref={endRef} />
    </div>
  );
}

function Reply({
  turn,
  answerable,
  onAnswer,
}: {
  turn: AssistantTurn;
  answerable: boolean;
  onAnswer: (r: Record<string, string>) => void;
}) {
  const calls = turn.toolCalls ?? [];
  return (
    <div className="space-y-1">
      {turn.content ? (
        <Markdown text={turn.content} />
      ) : (
        !turn.error && !calls.length && <span className="animate-pulse text-sm text-slate-400">Thinking…</span>
      )}
      {calls.map((c, i) => (
        <ToolCallView key={c.id || i} call={c} />
      ))}
      {answerable && calls.length > 0 && turn.stats && <AnswerTools calls={calls} onAnswer={onAnswer} />}
      {turn.error && (
        <p role="alert" className="rounded-md bg-rose-50 p-2 text-sm text-rose-800">
          {turn.error}
        </p>
      )}
      {turn.stats && <Stats stats={turn.stats} />}
    </div>
  );
}

function ToolCallView({ call }: { call: ToolCall }) {
  let args = call.arguments;
  try {
    args = JSON.stringify(JSON.parse(call.arguments), null, 2);
  } catch {
    // still streaming, or not JSON: shown as it came
  }
  return (
    <div data-testid="tool-call" className="rounded-md border border-amber-200 bg-amber-50 p-2 text-sm">
      <div className="text-xs font-medium text-amber-800">
        Tool call <span className="font-mono">{call.name}</span>
      </div>
      <pre className="mt-1 overflow-x-auto font-mono text-xs whitespace-pre-wrap [overflow-wrap:anywhere]">{args}</pre>
    </div>
  );
}

/**
 * The results of a reply's tool calls, typed by hand, sent back as tool messages; or the calls
 * dismissed, which sends a result saying so. Until then no new message can be sent.
 */
function AnswerTools({ calls, onAnswer }: { calls: ToolCall[]; onAnswer: (r: Record<string, string>) => void }) {
  const [results, setResults] = useState<Record<string, string>>({});
  return (
    <form
      aria-label="Tool results"
      className="space-y-2 rounded-md bg-slate-50 p-2"
      onSubmit={(e) => {
        e.preventDefault();
        onAnswer(results);
      }}
    >
      {calls.map((c) => (
        <label key={c.id} className="block text-sm">
          <span className="font-medium">Result of {c.name}</span>
          <input
            value={results[c.id] ?? ''}
            onChange={(e) => setResults({ ...results, [c.id]: e.target.value })}
            className={`${inputClass} mt-1 font-mono`}
            placeholder='e.g. {"temperature": 21}'
          />
        </label>
      ))}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" variant="primary" disabled={calls.some((c) => !(results[c.id] ?? '').trim())}>
          Send result{calls.length > 1 ? 's' : ''}
        </Button>
        <Button size="sm" onClick={() => onAnswer({})} title="Sends each call a result saying it was dismissed; the model goes on">
          Dismiss call{calls.length > 1 ? 's' : ''}
        </Button>
      </div>
    </form>
  );
}

function Stats({ stats }: { stats: ReplyStats }) {
  const parts = [
    stats.ttftMs !== null && `first token ${Math.round(stats.ttftMs)} ms`,
    stats.tokensPerS !== null && `${stats.tokensPerS.toFixed(1)} tokens/s`,
    stats.usage && `${stats.usage.prompt_tokens} prompt + ${stats.usage.completion_tokens} completion tokens`,
    stats.finish === 'length' && 'cut at max tokens',
    stats.finish === 'tool_calls' && 'waiting for tool results',
  ].filter(Boolean);
  return (
    <p data-testid="reply-stats" className="text-xs text-slate-500">
      {stats.stopped && <span className="mr-2 font-medium text-amber-700">stopped</span>}
      {parts.join(' · ')}
      {stats.provider && (
        <span data-testid="reply-provider">
          {parts.length ? ' · ' : ''}served by <span className="font-medium text-slate-700">{stats.provider}</span>
        </span>
      )}
    </p>
  );
}
