import type { Reply } from '@/lib/core/reply';
import { withoutRouting } from '@/lib/chat/schema';
import type { NativeDialect, NativeLedger } from '@/lib/pipeline/dialect';
import { SSE_HEADERS } from '../chat';
import { passedEvent, withCost } from '../common';
import type { MessagesRequest } from './schema';

/*
 * Anthropic's Messages API passed through (design §16) to a model server that declares it speaks it:
 * the request as the client wrote it, under the server's model name, with the client's
 * `anthropic-version` and `anthropic-beta` passed on; the reply and events as the server wrote them,
 * with the client's model name written in; the usage is the server's (cache reads and writes counted
 * with the input).
 */
export type NativeMessagesContext = {
  request: MessagesRequest;
  /** The request as the pipeline routes it: its `model` is the one that answered (a fallback of `models`, say). */
  chat: { model: string };
  /** The client's `anthropic-version` and `anthropic-beta`, if it sent them. */
  version: string | null;
  beta: string | null;
};

const FINISH: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool_calls' };

type Usage = { input_tokens?: number; output_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number };
const inputOf = (u: Usage | undefined) =>
  (u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0);

export function messagesNative(ctx: NativeMessagesContext): NativeDialect {
  const { request: req } = ctx;
  let input = 0;
  const usage = (ledger: NativeLedger, prompt: number, completion: number) =>
    ledger.absorbUsage({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
  return {
    endpoint: 'messages',
    streamHeaders: SSE_HEADERS,
    outgoing: (serverModel) => ({
      path: '/messages',
      body: withoutRouting(req, { model: serverModel }),
      headers: { 'anthropic-version': ctx.version ?? '2023-06-01', ...(ctx.beta ? { 'anthropic-beta': ctx.beta } : {}) },
    }),
    whole(value, ledger): Reply {
      const u = value.usage as Usage | undefined;
      if (typeof u?.output_tokens === 'number') usage(ledger, inputOf(u), u.output_tokens);
      for (const block of Array.isArray(value.content) ? value.content : [])
        if (typeof block?.text === 'string') ledger.absorbText(block.text);
      if (typeof value.stop_reason === 'string') ledger.absorbFinish(FINISH[value.stop_reason] ?? 'stop');
      return { status: 200, headers: {}, json: { ...value, model: ctx.chat.model, ...withCost(value, ledger) } };
    },
    event: (data, ledger) =>
      passedEvent(data, (e) => {
        if (e.type === 'message_start' && e.message && typeof e.message === 'object') {
          const message: Record<string, unknown> = { ...(e.message as Record<string, unknown>), model: ctx.chat.model };
          e.message = message;
          input = inputOf(message.usage as Usage | undefined);
        } else if (e.type === 'content_block_delta') {
          const delta = e.delta as { type?: string; text?: string } | undefined;
          if (delta?.type === 'text_delta' && typeof delta.text === 'string') ledger.absorbText(delta.text);
        } else if (e.type === 'message_delta') {
          const u = e.usage as Usage | undefined;
          if (typeof u?.output_tokens === 'number') usage(ledger, input || inputOf(u), u.output_tokens);
          Object.assign(e, withCost(e, ledger));
          const stop = (e.delta as { stop_reason?: string } | undefined)?.stop_reason;
          if (stop) ledger.absorbFinish(FINISH[stop] ?? 'stop');
        }
      }),
    close: () => '',
  };
}
