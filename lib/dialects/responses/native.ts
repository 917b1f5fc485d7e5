import type { Reply } from '@/lib/core/reply';
import { withoutRouting } from '@/lib/chat/schema';
import type { NativeDialect, NativeLedger } from '@/lib/pipeline/dialect';
import { SSE_HEADERS } from '../chat';
import { passedEvent, withCost } from '../common';
import type { Item, ResponsesRequest } from './schema';

/*
 * The Responses API passed through (design §16) to a model server that declares it speaks it: the
 * client's request as written under the server's model name, with the conversation so far spelt out
 * (the stored chain of previous_response_id and item references, resolved here) and `store: false` —
 * Triad keeps the responses, so that a conversation goes on whichever provider serves its next turn.
 * The server's response and events come back with only Triad's response id and the client's model name
 * written in; the usage is the server's.
 */
export type NativeResponsesContext = {
  id: string;
  request: ResponsesRequest;
  /** The request as the pipeline routes it: its `model` is the one that answered (a fallback of `models`, say). */
  chat: { model: string };
  /** The conversation: the stored chain's items, then this request's, references resolved. */
  items: Item[];
  keep(response: Record<string, unknown>, output: Item[]): Promise<void>;
};

const FINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** An item as a server that stores nothing of ours takes it: no ids it never gave (a reasoning item only with its encrypted content). */
function sendable(item: Item): Record<string, unknown> | null {
  if (item.type === 'reasoning') return 'encrypted_content' in item && item.encrypted_content ? item : null;
  const rest: Record<string, unknown> = { ...item };
  delete rest.id;
  delete rest.status;
  return rest;
}

export function responsesNative(ctx: NativeResponsesContext): NativeDialect {
  const { request: req } = ctx;
  let final: Record<string, unknown> | null = null;
  /** The server's response as Triad's: its id, the client's model name and chain. */
  const ours = (r: Record<string, unknown>): Record<string, unknown> => ({
    ...r,
    id: ctx.id,
    model: ctx.chat.model,
    previous_response_id: req.previous_response_id ?? null,
    store: req.store !== false,
  });
  const absorb = (r: Record<string, unknown>, ledger: NativeLedger) => {
    const u = r.usage as { input_tokens?: number; output_tokens?: number } | undefined;
    if (typeof u?.input_tokens === 'number' && typeof u.output_tokens === 'number')
      ledger.absorbUsage({
        prompt_tokens: u.input_tokens,
        completion_tokens: u.output_tokens,
        total_tokens: u.input_tokens + u.output_tokens,
      });
    ledger.absorbFinish(r.status === 'incomplete' ? 'length' : r.status === 'failed' ? 'error' : 'stop');
  };
  const textOf = (output: unknown) => {
    let text = '';
    for (const item of Array.isArray(output) ? output : [])
      for (const part of Array.isArray(item?.content) ? item.content : []) if (typeof part?.text === 'string') text += part.text;
    return text;
  };
  return {
    endpoint: 'responses',
    streamHeaders: SSE_HEADERS,
    outgoing(serverModel) {
      const body = withoutRouting(req, { model: serverModel, input: ctx.items.flatMap((i) => sendable(i) ?? []), store: false });
      delete body.previous_response_id;
      return { path: '/responses', body };
    },
    async whole(value, ledger): Promise<Reply> {
      const response = ours(value);
      ledger.absorbText(textOf(response.output));
      absorb(response, ledger);
      Object.assign(response, withCost(response, ledger));
      await ctx.keep(response, (response.output ?? []) as Item[]);
      return { status: 200, headers: {}, json: response };
    },
    event: (data, ledger) =>
      passedEvent(data, (e) => {
        if (e.response && typeof e.response === 'object') {
          e.response = ours(e.response as Record<string, unknown>);
          if (FINAL.has(e.type as string)) {
            absorb((final = e.response as Record<string, unknown>), ledger);
            Object.assign(final, withCost(final, ledger));
          }
        }
        if (e.type === 'response.output_text.delta' && typeof e.delta === 'string') ledger.absorbText(e.delta);
      }),
    async close() {
      if (final) await ctx.keep(final, (final.output ?? []) as Item[]);
      return '';
    },
  };
}
