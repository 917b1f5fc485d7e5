import { withoutRouting } from '@/lib/chat/schema';
import type { ApiError } from '@/lib/core/errors';
import type { Reply } from '@/lib/core/reply';
import type { ChatRequest } from '@/lib/chat/schema';
import { anthropicErrorBody } from '@/lib/errors/anthropic';
import { CHAT_COMPLETIONS, type Wire, type WireMessage } from '@/lib/providers/client';
import { SSE_HEADERS } from '../chat';
import type { Dialect, Ledger } from '@/lib/pipeline/dialect';
import { omittedToolsHeaders } from '../common';
import type { MessagesRequest } from './schema';
import { contentOf, newToolUseId, stopReasonOf, stopSequenceOf, usageOf } from './translate';

/*
 * The Messages dialect's replies (design §16), from a Chat Completions server's: a whole `message`,
 * or Anthropic's events — `message_start`, `ping`, per content block `content_block_start`, its
 * deltas (`text_delta`, `input_json_delta` for a tool's input, `thinking_delta`) and
 * `content_block_stop`, then `message_delta` with the stop reason and usage, and `message_stop`; an
 * error after the first byte as an `error` event.
 */

export type MessagesContext = { id: string; request: MessagesRequest; chat: ChatRequest; omitted: string[] };

type OpenBlock = { kind: 'text' | 'thinking' | 'tool'; index: number; key?: number };

export function messagesDialect(ctx: MessagesContext): Dialect {
  const { id, request: req, chat } = ctx;
  const thinking = req.thinking?.type === 'enabled';
  const headers = omittedToolsHeaders(ctx.omitted);
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

  let open: OpenBlock | null = null;
  let next = 0;
  const tools = new Map<number, number>(); // a tool call's index → its block's index
  let stoppedAt: string | null = null; // the stop sequence the server says it ended at
  /** stop_reason and stop_sequence: `stop_sequence` when the server ended at one the client asked for. */
  const ending = (ledger: Ledger) => {
    const sequence = ledger.finish() === 'stop' ? stoppedAt : null;
    return { stop_reason: sequence ? 'stop_sequence' : stopReasonOf(ledger.finish()), stop_sequence: sequence };
  };
  const stop = () => {
    if (!open) return '';
    const index = open.index;
    open = null;
    return event('content_block_stop', { index });
  };
  const start = (kind: OpenBlock['kind'], block: Record<string, unknown>, key?: number) => {
    const out = stop();
    open = { kind, index: next++, key };
    return out + event('content_block_start', { index: open.index, content_block: block });
  };
  const delta = (d: Record<string, unknown>) => event('content_block_delta', { index: open!.index, delta: d });

  const toolDelta = (tc: NonNullable<WireMessage['tool_calls']>[number], position: number) => {
    const key = tc.index ?? position;
    let out = '';
    if (!tools.has(key) || open?.kind !== 'tool' || open.key !== key) {
      if (tools.has(key)) return ''; // a call resumed after another began: Anthropic's blocks do not interleave (not seen from servers)
      out += start('tool', { type: 'tool_use', id: tc.id ?? newToolUseId(), name: tc.function?.name ?? '', input: {} }, key);
      tools.set(key, open!.index);
    }
    const args = tc.function?.arguments;
    return args ? out + delta({ type: 'input_json_delta', partial_json: args }) : out;
  };

  return {
    outgoing: (serverModel: string) => ({ path: CHAT_COMPLETIONS, body: withoutRouting(chat, { model: serverModel }) }),
    whole({ value: reply }: Wire, ledger: Ledger): Reply {
      const choice = reply.choices?.[0];
      stoppedAt = stopSequenceOf(choice, req.stop_sequences);
      return {
        status: 200,
        headers,
        json: {
          id,
          type: 'message',
          role: 'assistant',
          model: chat.model,
          content: contentOf(choice?.message, thinking),
          ...ending(ledger),
          usage: usageOf(ledger.usage(), ledger.cost()),
        },
      };
    },
    streamHeaders: { ...SSE_HEADERS, ...headers },
    open: () =>
      event('message_start', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: chat.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      }) + event('ping', {}),
    chunk({ value: chunk }: Wire): string | null {
      const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
      if (choice?.finish_reason) stoppedAt = stopSequenceOf(choice, req.stop_sequences);
      const d = choice?.delta;
      if (!d) return null;
      let out = '';
      if (thinking && typeof d.reasoning_content === 'string' && d.reasoning_content) {
        if (open?.kind !== 'thinking') out += start('thinking', { type: 'thinking', thinking: '', signature: '' });
        out += delta({ type: 'thinking_delta', thinking: d.reasoning_content });
      }
      if (typeof d.content === 'string' && d.content) {
        if (open?.kind !== 'text') out += start('text', { type: 'text', text: '' });
        out += delta({ type: 'text_delta', text: d.content });
      }
      if (Array.isArray(d.tool_calls)) d.tool_calls.forEach((tc, i) => (out += toolDelta(tc, i)));
      return out || null;
    },
    close(ledger: Ledger): string {
      return (
        stop() +
        event('message_delta', {
          delta: ending(ledger),
          usage: usageOf(ledger.usage(), ledger.cost()),
        }) +
        event('message_stop', {})
      );
    },
    fail: (error: ApiError) => event('error', { error: anthropicErrorBody(error).error }),
  };
}
