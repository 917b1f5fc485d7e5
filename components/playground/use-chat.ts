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
export type ToolDef = { name: string; description: string; /** A JSON schema, as typed. */ parameters: string };
/** Sampling settings as typed: a blank one is not sent (the model's default). */
export type Sampling = { topP: string; stop: string; seed: string; frequencyPenalty: string; presencePenalty: string };
/** Routing preferences (design §17): a sort, the providers allowed (names, comma-separated), fallback models; blank: none. */
export type Routing = { sort: '' | 'price' | 'latency' | 'throughput'; only: string; fallbacks: string };
export type ChatSettings = {
  model: string;
  system: string;
  temperature: number;
  maxTokens: number;
  sampling: Sampling;
  /** Tools the model may call, each defined by a JSON schema; their calls are answered by hand. */
  tools: { enabled: boolean; list: ToolDef[] };
  responseFormat: ResponseFormat;
  /** The JSON schema of the reply, for `json_schema`. */
  schema: string;
  /** Absent in conversations kept before it existed. */
  routing?: Routing;
};

export const WEATHER_TOOL: ToolDef = {
  name: 'get_weather',
  description: 'The current weather in a city',
  parameters: JSON.stringify({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, null, 2),
};
export const NEW_TOOL: ToolDef = {
  name: '',
  description: '',
  parameters: JSON.stringify({ type: 'object', properties: {} }, null, 2),
};

export const DEFAULT_SETTINGS: ChatSettings = {
  model: 'triad-guide',
  system: 'You are a helpful assistant.',
  temperature: 0.7,
  maxTokens: 512,
  sampling: { topP: '', stop: '', seed: '', frequencyPenalty: '', presencePenalty: '' },
  routing: { sort: '', only: '', fallbacks: '' },
  tools: { enabled: false, list: [WEATHER_TOOL] },
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

/** A sampling setting as typed, checked: its value to send, nothing when blank, or why it cannot be sent. */
export function samplingOf(s: Sampling): { body: Partial<ChatBody>; problems: string[] } {
  const body: Partial<ChatBody> = {};
  const problems: string[] = [];
  const number = (text: string, name: string, min: number, max: number, integer = false) => {
    if (!text.trim()) return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      problems.push(`${name} is ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`);
      return undefined;
    }
    return n;
  };
  const topP = number(s.topP, 'top_p', 0.01, 1);
  if (topP !== undefined) body.top_p = topP;
  const seed = number(s.seed, 'seed', -(2 ** 53 - 1), 2 ** 53 - 1, true);
  if (seed !== undefined) body.seed = seed;
  const fp = number(s.frequencyPenalty, 'frequency_penalty', -2, 2);
  if (fp !== undefined) body.frequency_penalty = fp;
  const pp = number(s.presencePenalty, 'presence_penalty', -2, 2);
  if (pp !== undefined) body.presence_penalty = pp;
  const stop = s.stop.split('\n').filter((x) => x !== '');
  if (stop.length > 4) problems.push('at most 4 stop sequences');
  else if (stop.length) body.stop = stop;
  return { body, problems };
}

/** The tools to offer: those with a name and a JSON schema (the settings say what is wrong with the others). */
export function toolsOf(settings: ChatSettings) {
  if (!settings.tools.enabled) return [];
  return settings.tools.list.flatMap((t) => {
    const parsed = schemaOf(t.parameters);
    if (!t.name.trim() || !('schema' in parsed)) return [];
    return [
      { type: 'function' as const, function: { name: t.name.trim(), description: t.description || undefined, parameters: parsed.schema } },
    ];
  });
}

/**
 * The turns as messages, keeping the tool-history rule of the chat APIs: an assistant's tool call goes
 * only with its result after it (OpenAI and vLLM refuse a history with an unanswered call). A call
 * left unanswered (a reply stopped while it called) is left out; a reply that was only that, too.
 */
function historyOf(turns: Turn[]): ChatBody['messages'] {
  const answered = new Set(turns.flatMap((t) => (t.role === 'tool' ? [t.toolCallId] : [])));
  return turns
    .flatMap((t): Turn[] => {
      if (t.error) return [];
      if (t.role !== 'assistant' || !t.toolCalls?.length) return [t];
      const toolCalls = t.toolCalls.filter((c) => answered.has(c.id));
      if (!toolCalls.length && !t.content) return [];
      return [{ ...t, toolCalls }];
    })
    .map(messageOf);
}

/** The request body for a conversation so far (turns that failed are left out), with the settings' tools, sampling and response format. */
export function chatBody(settings: ChatSettings, history: Turn[]): ChatBody {
  const schema = settings.responseFormat === 'json_schema' ? schemaOf(settings.schema) : null;
  const tools = toolsOf(settings);
  return {
    model: settings.model,
    messages: [...(settings.system.trim() ? [{ role: 'system' as const, content: settings.system }] : []), ...historyOf(history)],
    temperature: settings.temperature,
    max_tokens: settings.maxTokens,
    ...samplingOf(settings.sampling).body,
    ...routingOf(settings.routing),
    ...(tools.length ? { tools } : {}),
    ...(settings.responseFormat === 'json_object' ? { response_format: { type: 'json_object' as const } } : {}),
    ...(schema && 'schema' in schema
      ? { response_format: { type: 'json_schema' as const, json_schema: { name: 'reply', schema: schema.schema } } }
      : {}),
  };
}

const names = (text: string) =>
  text
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);

/** The routing settings as the request's `provider` and `models` (design §17); nothing for blank ones. */
export function routingOf(r: Routing | undefined): Pick<ChatBody, 'provider' | 'models'> {
  if (!r) return {};
  const only = names(r.only);
  const fallbacks = names(r.fallbacks);
  const provider = { ...(r.sort ? { sort: r.sort } : {}), ...(only.length ? { only } : {}) };
  return { ...(Object.keys(provider).length ? { provider } : {}), ...(fallbacks.length ? { models: fallbacks } : {}) };
}

/** The calls of the last reply that wait for their results (none when it failed or is still streaming). */
export function pendingCalls(turns: Turn[], busy: boolean): ToolCall[] {
  const last = turns.at(-1);
  return !busy && last?.role === 'assistant' && !last.error ? (last.toolCalls ?? []) : [];
}

/** What a dismissed call's result says, for the model to read. */
export const DISMISSED = 'The user dismissed this tool call: it was not run and there is no result.';

/**
 * Tokens a second of a reply, from its first token to its end: the tokens after the first over the
 * time after it. Not for a reply with no text (a tool call alone), nor one too short to time.
 */
export function tokenRate(r: { content: string; usage: Usage | null; ttftMs: number | null; totalMs: number }): number | null {
  if (!r.content || !r.usage || r.ttftMs === null || r.usage.completion_tokens < 2) return null;
  const ms = r.totalMs - r.ttftMs;
  return ms >= 1 ? ((r.usage.completion_tokens - 1) / ms) * 1000 : null;
}

/**
 * A conversation with the chat API: send a message, stream the reply into the last turn with its
 * stats, stop it (also with Esc), regenerate the last reply, clear.
 */
export function useChat(settings: ChatSettings, initial: Turn[] = []) {
  const [turns, setTurns] = useState<Turn[]>(initial);
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
      update({
        content: r.content,
        ...(r.toolCalls.length ? { toolCalls: r.toolCalls } : {}),
        stats: {
          ttftMs: r.ttftMs,
          tokensPerS: tokenRate(r),
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
    /** Tool calls of the last reply still waiting for their results: no new message until they have them. */
    awaiting: pendingCalls(turns, busy),
    /**
     * Sends `text` (and images) after the conversation so far; false when nothing was sent (empty, a
     * reply streaming, or tool calls waiting for their results).
     */
    send(text: string, images: string[] = []): boolean {
      if ((!text.trim() && !images.length) || busy || pendingCalls(turns, busy).length) return false;
      void run([...turns.filter((t) => !t.error), { role: 'user', content: text.trim(), ...(images.length ? { images } : {}) }]);
      return true;
    },
    /**
     * Answers the last reply's tool calls by hand (`results` by call id; a call with none is dismissed,
     * and its result says so): the results go back as tool messages and the model goes on.
     */
    answerTools(results: Record<string, string>) {
      const calls = pendingCalls(turns, busy);
      if (!calls.length) return;
      const answers: Turn[] = calls.map((c) => ({ role: 'tool', toolCallId: c.id, name: c.name, content: results[c.id] ?? DISMISSED }));
      void run([...turns.filter((t) => !t.error), ...answers]);
    },
    regenerate() {
      const lastAsked = turns.findLastIndex((t) => t.role !== 'assistant');
      if (lastAsked >= 0 && !busy) void run(turns.slice(0, lastAsked + 1));
    },
    stop: () => abortRef.current?.abort(),
    clear: () => setTurns([]),
    /** Shows a kept conversation. */
    restore: (kept: Turn[]) => !busy && setTurns(kept),
    /** The conversation without a reply under way or last (for "copy as curl"). */
    pending: () => (turns.at(-1)?.role === 'assistant' ? turns.slice(0, -1) : turns),
  };
}
