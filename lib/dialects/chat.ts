import type { ApiError } from '@/lib/core/errors';
import { randomId } from '@/lib/core/random-id';
import type { Reply } from '@/lib/core/reply';
import { type ChatRequest, withoutRouting } from '@/lib/chat/schema';
import { restamped, withField, withUsageCost } from '@/lib/chat/wire-text';
import { chatErrorBody } from '@/lib/errors/chat';
import { costNumber } from '@/lib/providers/prices';
import { CHAT_COMPLETIONS, type ModelCall, type Wire, type WireChoice, type WireReply } from '@/lib/providers/client';
import { complete, type CompletionCall } from '@/lib/pipeline/complete';
import type { Dialect, Ledger } from '@/lib/pipeline/dialect';

/*
 * OpenAI Chat Completions (interface 2.2–2.3, design §4 and §13): the dialect the model servers speak,
 * so a request goes to them as the client wrote it (under the server's own model name; a stream asks
 * for usage) and their replies come back as they wrote them, with this completion's id and the
 * client's model name — one JSON object, or Server-Sent Events ending with a finish chunk, the usage
 * chunk when the client asked, and `data: [DONE]`; the usage says what the completion cost (`cost`,
 * USD, design §17). Texts are passed on with only those values written in where they can be
 * (../chat/wire-text.ts), else encoded anew.
 */

const JSON_HEADERS = { 'content-type': 'application/json' };

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

/** An event of the stream: `data: ` and the text of a chunk (or `[DONE]`). */
const sse = (text: string) => `data: ${text}\n\n`;

/** A Chat Completions call: the request and, as the client sent it, its JSON text (passed on as it is when it can be). */
export type ChatCall = Omit<CompletionCall, 'dialect'> & { text?: string };

export const createChatCompletion = (call: ChatCall): Promise<Reply> =>
  complete({ ...call, dialect: chatDialect(call.request, call.text) });

/** `text`: the request's JSON text as the client sent it (passed on as it is when it says what the server must get). */
export function chatDialect(request: ChatRequest, text?: string): Dialect {
  const id = `chatcmpl-${randomId(12)}`;
  const wantsUsage = !!request.stream_options?.include_usage;
  // What the client asked for: a budget may bound the output (lib/pipeline/policy.ts), and the text then no longer says it.
  const askedMaxTokens = request.max_tokens;
  let chunks = 0;
  let created = 0;
  const chunkOf = (choices: WireChoice[], extra: object = {}): string =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: created || Math.floor(Date.now() / 1000),
      model: request.model,
      choices,
      ...extra,
    });
  return {
    /**
     * The client's request under the server's own model name; a stream asks for usage. The client's text
     * goes as it is when that is what it says (the same model name; for a stream, usage asked already or
     * added at its end), else the object is encoded.
     */
    outgoing(serverModel: string): Omit<ModelCall, 'signal'> {
      // Routing preferences and fallback models are Triad's (design §17): never the server's.
      const body = withoutRouting(request, { model: serverModel });
      if (request.stream) body.stream_options = { ...request.stream_options, include_usage: true };
      const path = CHAT_COMPLETIONS;
      const rewritten = 'provider' in request || 'models' in request || request.max_tokens !== askedMaxTokens;
      if (text === undefined || serverModel !== request.model || rewritten) return { path, body };
      if (!request.stream || request.stream_options?.include_usage === true) return { path, body, json: text };
      if (!('stream_options' in request))
        return { path, body, json: withField(text, 'stream_options', { include_usage: true }) ?? undefined };
      return { path, body };
    },
    /** The whole reply as the server wrote it, with this completion's id, the client's model name, and usage (counted when it had none) with its cost. */
    whole({ value: reply, text: replyText }: Wire, ledger: Ledger): Reply {
      const usage = ledger.usage();
      const cost = costNumber(ledger.cost());
      // The server's text, when the usage in it is the one billed.
      const same = reply.usage === usage && replyText !== undefined ? restamped(replyText, reply, id, request.model) : null;
      const priced = same !== null ? withUsageCost(same, reply, cost) : null;
      if (priced !== null) return { status: 200, headers: JSON_HEADERS, text: priced };
      return { status: 200, headers: {}, json: { ...reply, id, model: request.model, usage: { ...usage, cost } } };
    },
    streamHeaders: SSE_HEADERS,
    open: () => '',
    /**
     * A chunk as the server wrote it, with this completion's id and the client's model name (the first
     * chunk with the assistant's role); usage the client did not ask for is left out (a chunk that
     * carried only that: nothing), usage it asked for says what it cost.
     */
    chunk({ value: chunk, text: chunkText }: Wire, ledger: Ledger): string | null {
      const first = chunks++ === 0;
      created ||= typeof chunk.created === 'number' ? chunk.created : Math.floor(Date.now() / 1000);
      const dropUsage = !!chunk.usage && !wantsUsage;
      if (dropUsage && !chunk.choices?.length) return null;
      const lead = chunk.choices?.[0];
      const addRole = first && !!lead?.delta && lead.delta.role === undefined;
      const priced = !!chunk.usage && !dropUsage;
      const billed = priced ? ledger.usage() : null;
      const cost = priced ? costNumber(ledger.cost()) : 0;
      if (!dropUsage && !addRole && chunkText !== undefined && billed === (chunk.usage ?? null)) {
        const same = restamped(chunkText, chunk, id, request.model);
        const out = same !== null && priced ? withUsageCost(same, chunk, cost) : same;
        if (out !== null) return sse(out);
      }
      const out: WireReply = { ...chunk, id, model: request.model };
      if (dropUsage) delete out.usage;
      else if (billed) out.usage = { ...billed, cost };
      if (addRole) out.choices = [{ ...lead, delta: { role: 'assistant', ...lead!.delta } }, ...out.choices!.slice(1)];
      return sse(JSON.stringify(out));
    },
    /** A finish chunk if the server sent none, the usage chunk when the client asked and the server sent none, `[DONE]`. */
    close(ledger: Ledger): string {
      let out = '';
      if (!ledger.finished()) out += sse(chunkOf([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      if (wantsUsage && !ledger.hasUsage()) out += sse(chunkOf([], { usage: { ...ledger.usage(), cost: costNumber(ledger.cost()) } }));
      return out + sse('[DONE]');
    },
    /** An error after the first byte: an error event in the chat group's shape, then `[DONE]`. */
    fail: (error: ApiError) => sse(JSON.stringify(chatErrorBody(error))) + sse('[DONE]'),
  };
}
