'use client';

import { useEffect, useRef, useState } from 'react';
import type { Usage } from '@/lib/chat/schema';
import { type ChatBody, ChatApiError, streamChat, type ToolCall } from '@/lib/client/chat';

export type ReplyStats = {
  ttftMs: number | null;
  tokensPerS: number | null;
  usage: Usage | null;
  finish: string | null;
  stopped: boolean;
  provider: string | null;
};
export type Turn =
  | { role: 'user'; content: string; /** Attached images, as data: URLs. */ images?: string[]; error?: undefined }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; stats?: ReplyStats; error?: string }
  | { role: 'tool'; toolCallId: string; name: string; content: string; error?: undefined };
export type ResponseFormat = 'text' | 'json_object' | 'json_schema';
export type ChatSettings = {
  model: string;
  system: string;
  temperature: number;
  maxTokens: number;
  /** One tool the model may call, defined as a JSON schema; its calls are answered by hand. */
  tool: { enabled: boolean; name: string; description: string; parameters: string };
  responseFormat: ResponseFormat;
  /** The JSON schema of the reply, for `json_schema`. */
  schema: string;
};

export const DEFAULT_SETTINGS: ChatSettings = {
  model: 'triad-guide',
  system: 'You are a helpful assistant.',
  temperature: 0.7,
  maxTokens: 512,
  tool: {
    enabled: false,
    name: 'get_weather',
    description: 'The current weather in a city',
    parameters: JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, null, 2),
  },
  responseFormat: 'text',
  schema: JSON.stringify(
    { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false },
    null,
    2,
  ),
};

/** A JSON schema typed into a settings box, or why it is not one. */
export function schemaOf(text: string): { schema: Record<string, unknown> } | { error: string } {
  try {
    const schema = JSON.parse(text) as unknown;
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return { error: 'a JSON schema is an object' };
    return { schema: schema as Record<string, unknown> };
  } catch (e) {
    return { error: `not JSON: ${(e as Error).message}` };
  }
}

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

/** A turn as the chat API takes it: images as image_url parts, tool calls and their results as the dialect has them. */
function messageOf(t: Turn): ChatBody['messages'][number] {
  if (t.role === 'tool') return { role: 'tool', tool_call_id: t.toolCallId, content: t.content };
  if (t.role === 'assistant') {
    const calls = t.toolCalls?.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
    return calls?.length ? { role: 'assistant', content: t.content || null, tool_calls: calls } : { role: 'assistant', content: t.content };
  }
  if (!t.images?.length) return { role: 'user', content: t.content };
  return {
    role: 'user',
    content: [
      ...(t.content ? [{ type: 'text' as const, text: t.content }] : []),
      ...t.images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
    ],
  };
}

/** The request body for a conversation so far (turns that failed are left out), with the tool and response format of the settings. */
export function chatBody(settings: ChatSettings, history: Turn[]): ChatBody {
  const parameters = settings.tool.enabled ? schemaOf(settings.tool.parameters) : null;
  const schema = settings.responseFormat === 'json_schema' ? schemaOf(settings.schema) : null;
  return {
    model: settings.model,
    messages: [
      ...(settings.system.trim() ? [{ role: 'system' as const, content: settings.system }] : []),
      ...history.filter((t) => !t.error).map(messageOf),
    ],
    temperature: settings.temperature,
    max_tokens: settings.maxTokens,
    ...(parameters && 'schema' in parameters
      ? {
          tools: [
            {
              type: 'function' as const,
              function: { name: settings.tool.name, description: settings.tool.description || undefined, parameters: parameters.schema },
            },
          ],
        }
      : {}),
    ...(settings.responseFormat === 'json_object' ? { response_format: { type: 'json_object' as const } } : {}),
    ...(schema && 'schema' in schema
      ? { response_format: { type: 'json_schema' as const, json_schema: { name: 'reply', schema: schema.schema } } }
      : {}),
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
    const update = (patch: Partial<Extract<Turn, { role: 'assistant' }>>) =>
      setTurns((all) => [...all.slice(0, -1), { ...(all.at(-1) as Extract<Turn, { role: 'assistant' }>), ...patch }]);
    try {
      const r = await streamChat(chatBody(settings, history), {
        signal: controller.signal,
        onDelta: (content, toolCalls) => update({ content, ...(toolCalls.length ? { toolCalls: toolCalls.map((c) => ({ ...c })) } : {}) }),
      });
      const genMs = r.ttftMs === null ? null : r.totalMs - r.ttftMs;
      update({
        content: r.content,
        ...(r.toolCalls.length ? { toolCalls: r.toolCalls } : {}),
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
    /** Sends `text` (and images) after the conversation so far; false when nothing was sent (empty, or a reply is streaming). */
    send(text: string, images: string[] = []): boolean {
      if ((!text.trim() && !images.length) || busy) return false;
      void run([...turns.filter((t) => !t.error), { role: 'user', content: text.trim(), ...(images.length ? { images } : {}) }]);
      return true;
    },
    /** Answers the last reply's tool calls by hand (`results` by call id): the results go back as tool messages and the model goes on. */
    answerTools(results: Record<string, string>) {
      const last = turns.at(-1);
      if (busy || last?.role !== 'assistant' || !last.toolCalls?.length) return;
      const answers: Turn[] = last.toolCalls.map((c) => ({ role: 'tool', toolCallId: c.id, name: c.name, content: results[c.id] ?? '' }));
      void run([...turns.filter((t) => !t.error), ...answers]);
    },
    regenerate() {
      const lastAsked = turns.findLastIndex((t) => t.role !== 'assistant');
      if (lastAsked >= 0 && !busy) void run(turns.slice(0, lastAsked + 1));
    },
    stop: () => abortRef.current?.abort(),
    clear: () => setTurns([]),
    /** The conversation without a reply under way or last (for "copy as curl"). */
    pending: () => (turns.at(-1)?.role === 'assistant' ? turns.slice(0, -1) : turns),
  };
}
