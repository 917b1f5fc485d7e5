'use client';

import { useEffect, useRef } from 'react';
import { Markdown } from './markdown';
import type { ReplyStats, Turn } from './use-chat';

/** The turns of a conversation, scrolled to the newest. */
export function Conversation({ turns }: { turns: Turn[] }) {
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
          className={t.role === 'user' ? 'ml-auto max-w-[85%] rounded-lg bg-indigo-50 px-3 py-2 text-sm whitespace-pre-wrap' : 'max-w-full'}
        >
          {t.role === 'user' ? t.content : <Reply turn={t} />}
        </div>
      ))}
      <div ref={endRef} />
    </div>
  );
}

function Reply({ turn }: { turn: Turn }) {
  return (
    <div className="space-y-1">
      {turn.content ? (
        <Markdown text={turn.content} />
      ) : (
        !turn.error && <span className="animate-pulse text-sm text-slate-400">Thinking…</span>
      )}
      {turn.error && (
        <p role="alert" className="rounded-md bg-rose-50 p-2 text-sm text-rose-800">
          {turn.error}
        </p>
      )}
      {turn.stats && <Stats stats={turn.stats} />}
    </div>
  );
}

function Stats({ stats }: { stats: ReplyStats }) {
  return (
    <p data-testid="reply-stats" className="text-xs text-slate-500">
      {stats.stopped && <span className="mr-2 font-medium text-amber-700">stopped</span>}
      {stats.ttftMs !== null && `first token ${Math.round(stats.ttftMs)} ms · `}
      {stats.tokensPerS !== null && `${stats.tokensPerS.toFixed(1)} tokens/s · `}
      {stats.usage && `${stats.usage.prompt_tokens} prompt + ${stats.usage.completion_tokens} completion tokens`}
      {stats.finish === 'length' && ' · cut at max tokens'}
      {stats.provider && (
        <span data-testid="reply-provider">
          {' · served by '}
          <span className="font-medium text-slate-700">{stats.provider}</span>
        </span>
      )}
    </p>
  );
}
