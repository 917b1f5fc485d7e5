'use client';

import { useEffect, useRef, useState } from 'react';
import type { Usage } from '@/lib/chat/schema';
import { type ChatBody, ChatApiError, streamChat } from '@/lib/client/chat';

export type ReplyStats = {
  ttftMs: number | null;
  tokensPerS: number | null;
  usage: Usage | null;
  finish: string | null;
  stopped: boolean;
  provider: string | null;
};
export type Turn = { role: 'user' | 'assistant'; content: string; stats?: ReplyStats; error?: string };
export type ChatSettings = { model: string; system: string; temperature: number; maxTokens: number };

/** What a person should read for a failed request. */
export function explain(e: unknown): string {
  if (e instanceof ChatApiError) {
    if (e.status === 401) return 'The session has ended (signed out, expired or its token revoked). Sign in again.';
    if (e.status === 403) return e.message;
    if (e.status === 429) return `Rate limit reached for the playground's API key.${e.retryAfterS ? ` Retry in ${e.retryAfterS} s.` : ''}`;
    if (e.status === 404) return `${e.message}`;
    if (e.status === 502 || e.status === 504) return `The model server failed: ${e.message}`;
    if (e.status === 503) return `${e.message}`;
    return e.message;
  }
  return (e as Error)?.message ?? String(e);
}

/** The request body for a conversation so far (turns that failed are left out). */
export function chatBody(settings: ChatSettings, history: Turn[]): ChatBody {
  return {
    model: settings.model,
    messages: [
      ...(settings.system.trim() ? [{ role: 'system' as const, content: settings.system }] : []),
      ...history.filter((t) => !t.error).map((t) => ({ role: t.role, content: t.content })),
    ],
    temperature: settings.temperature,
    max_tokens: settings.maxTokens,
  };
}

/**
 * A conversation with the chat API: send a message, stream the reply into the last turn with its
 * stats, stop it (also with Esc), regenerate the last reply, clear.
 */
export function useChat(settings: ChatSettings) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const abortRef = useRef<AbortController | null>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && abortRef.current?.abort();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  async function run(history: Turn[]) {
    const controller = new AbortController();
    abortRef.current = controller;
    setBusy(true);
    setTurns([...history, { role: 'assistant', content: '' }]);
    const update = (patch: Partial<Turn>) => setTurns((all) => [...all.slice(0, -1), { ...all.at(-1)!, ...patch }]);
    try {
      const r = await streamChat(chatBody(settings, history), {
        signal: controller.signal,
        onDelta: (content) => update({ content }),
      });
      const genMs = r.ttftMs === null ? null : r.totalMs - r.ttftMs;
      update({
        content: r.content,
        stats: {
          ttftMs: r.ttftMs,
          tokensPerS: r.usage && genMs && genMs > 0 ? (r.usage.completion_tokens / genMs) * 1000 : null,
          usage: r.usage,
          finish: r.finish,
          stopped: r.aborted,
          provider: r.provider,
        },
      });
    } catch (e) {
      update({ error: explain(e) });
    } finally {
      abortRef.current = null;
      setBusy(false);
    }
  }

  return {
    turns,
    busy,
    /** Sends `text` after the conversation so far; false when nothing was sent (empty, or a reply is streaming). */
    send(text: string): boolean {
      if (!text.trim() || busy) return false;
      void run([...turns.filter((t) => !t.error), { role: 'user', content: text.trim() }]);
      return true;
    },
    regenerate() {
      const lastUser = turns.map((t) => t.role).lastIndexOf('user');
      if (lastUser >= 0 && !busy) void run(turns.slice(0, lastUser + 1));
    },
    stop: () => abortRef.current?.abort(),
    clear: () => setTurns([]),
    /** The conversation without a reply under way or last (for "copy as curl"). */
    pending: () => (turns.at(-1)?.role === 'assistant' ? turns.slice(0, -1) : turns),
  };
}
