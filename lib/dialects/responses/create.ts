import type { ApiKeyPrincipal } from '@/lib/auth/credentials';
import { complete } from '@/lib/pipeline/complete';
import { config } from '@/lib/config';
import { randomId } from '@/lib/core/random-id';
import type { Reply } from '@/lib/core/reply';
import type { Db } from '@/lib/db/client';
import { invalidRequest, storedNotFound, unsupportedParameter } from '@/lib/errors/chat';
import { asChatRequest } from '../common';
import { responsesDialect } from './dialect';
import { type InputItem, isKnownItem, type Item, type ResponsesRequest } from './schema';
import { historyOf, itemsById, saveResponse } from './store';
import { responsesNative } from './native';
import { chatRequestOf, newItemId } from './translate';

/*
 * POST /api/v1/responses (design §16): the conversation so far (the stored chain of
 * `previous_response_id`, then this request's items with their `item_reference`s resolved), translated
 * onto Chat Completions and run through the completion pipeline with the Responses dialect (passed
 * through instead to a provider that speaks the Responses API: ./native.ts); the response stored with
 * its items for its organization unless `store: false`.
 */
export type ResponseCall = { db: Db; request: ResponsesRequest; apiKey: ApiKeyPrincipal; platform: string | null; signal: AbortSignal };

const ID_PREFIXES = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
  tool_search_call: 'tsc',
  tool_search_output: 'tso',
  reasoning: 'rs',
  item_reference: 'item',
} as const;
/** A new id for an item the client gave without one (`item_…` for kinds Triad does not translate). */
const idOf = (item: InputItem): string => newItemId(isKnownItem(item) ? ID_PREFIXES[item.type] : 'item');

export async function createResponse(call: ResponseCall): Promise<Reply> {
  const startedAt = performance.now();
  const { db, request: req, apiKey } = call;
  if (req.background) throw unsupportedParameter('background', 'Background responses are not offered here: leave `background` out.');
  const history = req.previous_response_id ? await historyOf(db, apiKey.orgId, req.previous_response_id) : [];
  if (!history) throw storedNotFound('Previous response', req.previous_response_id!, 'previous_response_id');

  const given: InputItem[] = typeof req.input === 'string' ? [{ type: 'message', role: 'user', content: req.input }] : (req.input ?? []);
  const refs = await itemsById(
    db,
    apiKey.orgId,
    given.flatMap((i) => (isKnownItem(i) && i.type === 'item_reference' ? [i.id] : [])),
  );
  const input: Item[] = given.map((i, n) => {
    if (!isKnownItem(i) || i.type !== 'item_reference') return { ...i, id: i.id ?? idOf(i) } as Item;
    const found = refs.get(i.id);
    if (!found) throw storedNotFound('Item', i.id, `input[${n}]`);
    return found;
  });

  const { chat, omitted, names } = chatRequestOf(req, [...history, ...input]);
  const chatRequest = asChatRequest(chat, (at, message) =>
    invalidRequest(`The request translates to an invalid chat request at ${at ?? 'its root'}: ${message}`),
  );
  const id = `resp_${randomId(32)}`;
  const keep = async (response: Record<string, unknown>, output: Item[]) => {
    if (req.store === false) return;
    await saveResponse(db, {
      id,
      orgId: apiKey.orgId,
      apiKeyId: apiKey.id,
      previousResponseId: req.previous_response_id ?? null,
      body: response,
      input,
      output,
      ttlDays: config().TRIAD_RESPONSES_TTL_DAYS,
    });
  };
  const dialect = {
    ...responsesDialect({ id, request: req, chat: chatRequest, names, omitted, keep }),
    // To a provider that speaks the Responses API: passed through, the conversation spelt out.
    native: responsesNative({ id, request: req, chat: chatRequest, items: [...history, ...input], keep }),
  };
  return complete({
    db,
    request: chatRequest,
    dialect,
    apiKeyId: apiKey.id,
    tenant: apiKey,
    platform: call.platform,
    signal: call.signal,
    startedAt,
  });
}
