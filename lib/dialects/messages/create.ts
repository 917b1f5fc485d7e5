import type { ApiKeyPrincipal } from '@/lib/auth/credentials';
import { complete } from '@/lib/pipeline/complete';
import { plainMessages } from '@/lib/chat/schema';
import { countPromptTokens, countTokens } from '@/lib/chat/tokens';
import type { Reply } from '@/lib/core/reply';
import type { Db } from '@/lib/db/client';
import { invalidMessagesRequest } from '@/lib/errors/anthropic';
import { asChatRequest } from '../common';
import { messagesDialect } from './dialect';
import { messagesNative } from './native';
import type { MessagesRequest } from './schema';
import { chatRequestOf, newMessageId } from './translate';

/*
 * POST /api/v1/messages (design §16): Anthropic's request translated onto Chat Completions and run
 * through the completion pipeline with the Messages dialect; and count_tokens, by Triad's tokenizer
 * over the same translation.
 */
export type MessagesCall = {
  db: Db;
  request: MessagesRequest;
  apiKey: ApiKeyPrincipal;
  platform: string | null;
  signal: AbortSignal;
  /** The client's `anthropic-version` and `anthropic-beta` headers (passed on to a provider that speaks Messages). */
  version?: string | null;
  beta?: string | null;
};

function translated(req: MessagesRequest) {
  const { chat, omitted } = chatRequestOf(req);
  const parsed = asChatRequest(chat, (at, message) =>
    invalidMessagesRequest(`${at ?? 'request'}: ${message} (in the request as a Chat Completions provider gets it)`),
  );
  return { chat: parsed, omitted };
}

export async function createMessage(call: MessagesCall): Promise<Reply> {
  const startedAt = performance.now();
  const { chat, omitted } = translated(call.request);
  const dialect = {
    ...messagesDialect({ id: newMessageId(), request: call.request, chat, omitted }),
    // To a provider that speaks the Messages API: passed through, with the client's anthropic-version and -beta.
    native: messagesNative({ request: call.request, chat, version: call.version ?? null, beta: call.beta ?? null }),
  };
  return complete({
    db: call.db,
    request: chat,
    dialect,
    apiKeyId: call.apiKey.id,
    tenant: call.apiKey,
    platform: call.platform,
    signal: call.signal,
    startedAt,
  });
}

/** The prompt's tokens as Triad counts them: the messages as a provider gets them, and the tools' definitions. */
export function countMessageTokens(req: Omit<MessagesRequest, 'max_tokens'>): { input_tokens: number } {
  const { chat } = translated({ ...req, max_tokens: 1 } as MessagesRequest);
  return { input_tokens: countPromptTokens(plainMessages(chat)) + (chat.tools?.length ? countTokens(JSON.stringify(chat.tools)) : 0) };
}
