import { withoutRouting } from '@/lib/chat/schema';
import type { ApiError } from '@/lib/core/errors';
import type { Reply } from '@/lib/core/reply';
import type { ChatRequest } from '@/lib/chat/schema';
import { CHAT_COMPLETIONS, type Wire, type WireMessage } from '@/lib/providers/client';
import { SSE_HEADERS } from '../chat';
import type { Dialect, Ledger } from '@/lib/pipeline/dialect';
import { omittedToolsHeaders } from '../common';
import type { Item, ResponsesRequest } from './schema';
import {
  callItemOf,
  callName,
  callPrefix,
  newCallId,
  newItemId,
  outputOf,
  statusOf,
  type ToolName,
  type ToolNames,
  usageOf,
} from './translate';

/*
 * The Responses dialect's replies (design §16), from a Chat Completions server's: a whole `response`
 * object, or OpenAI's event sequence — `response.created`, `response.in_progress`, then per output item
 * `response.output_item.added`, its parts and deltas (`response.output_text.delta`,
 * `response.function_call_arguments.delta`, `response.reasoning_summary_text.delta`) and their `.done`
 * events, `response.output_item.done` (a custom tool's call: its input in one
 * `response.custom_tool_call_input.delta` once the call's arguments are whole, being read out of them; a
 * tool search's call: its arguments in its `output_item.done`);
 * finally `response.completed` (or `response.incomplete`, or `response.failed` after an error) — each
 * with a rising `sequence_number`, as `event:` and `data:` lines. The finished response is handed to `keep` (stored) before the client hears it is complete.
 */

export type ResponsesContext = {
  id: string;
  request: ResponsesRequest;
  /** The translated request the model servers get. */
  chat: ChatRequest;
  names: ToolNames;
  omitted: string[];
  /** Stores the finished response with its output items (unless the request said store: false). */
  keep(response: Record<string, unknown>, output: Item[]): Promise<void>;
};

type Part = { type: 'output_text' | 'refusal'; text: string };
type Open =
  | { kind: 'reasoning'; id: string; index: number; text: string }
  | { kind: 'message'; id: string; index: number; parts: Part[] }
  | { kind: 'call'; id: string; index: number; callId: string; tool: ToolName; args: string };

export function responsesDialect(ctx: ResponsesContext): Dialect {
  const { id, request: req, chat, names } = ctx;
  const createdAt = Math.floor(Date.now() / 1000);
  const headers = omittedToolsHeaders(ctx.omitted);

  const responseOf = (status: string, output: unknown[], usage: unknown, extra: Record<string, unknown> = {}) => ({
    id,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    metadata: req.metadata ?? {},
    model: chat.model, // the model that answered (a fallback of `models`, say)
    output,
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: req.previous_response_id ?? null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? null },
    store: req.store !== false,
    temperature: req.temperature ?? 1,
    text: { format: req.text?.format ?? { type: 'text' } },
    tool_choice: req.tool_choice ?? 'auto',
    tools: req.tools ?? [],
    top_p: req.top_p ?? 1,
    truncation: 'disabled',
    usage,
    user: req.user ?? null,
    ...extra,
  });
  const finished = (ledger: Ledger, output: Item[]) => {
    const { status, incomplete_details } = statusOf(ledger.finish());
    return responseOf(status, output, usageOf(ledger.usage(), ledger.cost()), {
      incomplete_details,
      completed_at: Math.floor(Date.now() / 1000),
    });
  };

  // The stream's state: items done, in order; those still open.
  let seq = 0;
  const output: Item[] = [];
  let reasoning: Extract<Open, { kind: 'reasoning' }> | null = null;
  let message: Extract<Open, { kind: 'message' }> | null = null;
  const calls = new Map<number, Extract<Open, { kind: 'call' }>>();
  let nextIndex = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;

  const closeReasoning = () => {
    if (!reasoning) return '';
    const r = reasoning;
    reasoning = null;
    const item = { id: r.id, type: 'reasoning', summary: [{ type: 'summary_text', text: r.text }] } as Item;
    output[r.index] = item;
    const at = { item_id: r.id, output_index: r.index, summary_index: 0 };
    return (
      event('response.reasoning_summary_text.done', { ...at, text: r.text }) +
      event('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: r.text } }) +
      event('response.output_item.done', { output_index: r.index, item })
    );
  };
  const partOf = (p: Part) =>
    p.type === 'output_text' ? { type: 'output_text', annotations: [], logprobs: [], text: p.text } : { type: 'refusal', refusal: p.text };
  const closeMessage = () => {
    if (!message) return '';
    const m = message;
    message = null;
    let out = '';
    m.parts.forEach((p, i) => {
      const at = { item_id: m.id, output_index: m.index, content_index: i };
      out +=
        p.type === 'output_text'
          ? event('response.output_text.done', { ...at, text: p.text, logprobs: [] })
          : event('response.refusal.done', { ...at, refusal: p.text });
      out += event('response.content_part.done', { ...at, part: partOf(p) });
    });
    const item = { id: m.id, type: 'message', status: 'completed', role: 'assistant', content: m.parts.map(partOf) } as Item;
    output[m.index] = item;
    return out + event('response.output_item.done', { output_index: m.index, item });
  };
  const closeCalls = () => {
    let out = '';
    for (const c of calls.values()) {
      const item = callItemOf(c.id, c.callId, c.tool, c.args, 'completed');
      output[c.index] = item;
      const at = { item_id: c.id, output_index: c.index };
      if (c.tool.custom) {
        const { input } = item as { input: string };
        if (input) out += event('response.custom_tool_call_input.delta', { ...at, delta: input });
        out += event('response.custom_tool_call_input.done', { ...at, input });
      } else if (!c.tool.search) out += event('response.function_call_arguments.done', { ...at, name: c.tool.name, arguments: c.args });
      out += event('response.output_item.done', { output_index: c.index, item });
    }
    calls.clear();
    return out;
  };
  /** Text (or a refusal) into the open message, opened (with the part) when needed. */
  const say = (type: Part['type'], delta: string) => {
    let out = closeReasoning();
    if (!message) {
      out += closeCalls();
      message = { kind: 'message', id: newItemId('msg'), index: nextIndex++, parts: [] };
      out += event('response.output_item.added', {
        output_index: message.index,
        item: { id: message.id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
    }
    let i = message.parts.length - 1;
    if (i < 0 || message.parts[i]!.type !== type) {
      message.parts.push({ type, text: '' });
      i++;
      out += event('response.content_part.added', {
        item_id: message.id,
        output_index: message.index,
        content_index: i,
        part: partOf(message.parts[i]!),
      });
    }
    message.parts[i]!.text += delta;
    const at = { item_id: message.id, output_index: message.index, content_index: i };
    return (
      out +
      (type === 'output_text'
        ? event('response.output_text.delta', { ...at, delta, logprobs: [] })
        : event('response.refusal.delta', { ...at, delta }))
    );
  };
  const think = (delta: string) => {
    let out = '';
    if (!reasoning) {
      out += closeMessage() + closeCalls();
      reasoning = { kind: 'reasoning', id: newItemId('rs'), index: nextIndex++, text: '' };
      out += event('response.output_item.added', {
        output_index: reasoning.index,
        item: { id: reasoning.id, type: 'reasoning', summary: [] },
      });
      out += event('response.reasoning_summary_part.added', {
        item_id: reasoning.id,
        output_index: reasoning.index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    }
    reasoning.text += delta;
    return (
      out +
      event('response.reasoning_summary_text.delta', { item_id: reasoning.id, output_index: reasoning.index, summary_index: 0, delta })
    );
  };
  const callDelta = (tc: NonNullable<WireMessage['tool_calls']>[number], position: number) => {
    const key = tc.index ?? position;
    let out = '';
    let c = calls.get(key);
    if (!c) {
      out += closeReasoning() + closeMessage();
      const tool = { ...callName(names, tc.function?.name ?? '') }; // its own: a name may come in pieces
      c = { kind: 'call', id: newItemId(callPrefix(tool)), index: nextIndex++, callId: tc.id ?? newCallId(), tool, args: '' };
      calls.set(key, c);
      out += event('response.output_item.added', { output_index: c.index, item: callItemOf(c.id, c.callId, tool, '', 'in_progress') });
    } else if (tc.function?.name) c.tool.name += tc.function.name; // a name in pieces (rare)
    const delta = tc.function?.arguments ?? '';
    if (delta) {
      c.args += delta;
      // A custom tool's input and a search's arguments are read out of the whole arguments (closeCalls); a function's stream as they come.
      if (!c.tool.custom && !c.tool.search)
        out += event('response.function_call_arguments.delta', { item_id: c.id, output_index: c.index, delta });
    }
    return out;
  };

  return {
    outgoing: (serverModel: string) => ({ path: CHAT_COMPLETIONS, body: withoutRouting(chat, { model: serverModel }) }),
    async whole({ value: reply }: Wire, ledger: Ledger): Promise<Reply> {
      const items = outputOf(reply.choices?.[0]?.message, names);
      const response = finished(ledger, items);
      await ctx.keep(response, items);
      return { status: 200, headers, json: response };
    },
    streamHeaders: { ...SSE_HEADERS, ...headers },
    open: () => {
      const response = responseOf('in_progress', [], null);
      return event('response.created', { response }) + event('response.in_progress', { response });
    },
    chunk({ value: chunk }: Wire): string | null {
      const delta = chunk.choices?.find((c) => (c.index ?? 0) === 0)?.delta;
      if (!delta) return null;
      let out = '';
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content) out += think(delta.reasoning_content);
      if (typeof delta.content === 'string' && delta.content) out += say('output_text', delta.content);
      if (typeof delta.refusal === 'string' && delta.refusal) out += say('refusal', delta.refusal);
      if (Array.isArray(delta.tool_calls)) delta.tool_calls.forEach((tc, i) => (out += callDelta(tc, i)));
      return out || null;
    },
    async close(ledger: Ledger): Promise<string> {
      const out = closeReasoning() + closeMessage() + closeCalls();
      const items = output.filter(Boolean);
      const response = finished(ledger, items);
      await ctx.keep(response, items);
      return out + event(response.status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    },
    fail(error: ApiError): string {
      const response = responseOf('failed', output.filter(Boolean), null, {
        error: { code: error.status >= 500 ? 'server_error' : (error.code ?? 'server_error'), message: error.message },
      });
      return event('response.failed', { response });
    },
  };
}
