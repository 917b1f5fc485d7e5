import { createChatCompletion } from '@/lib/chat/complete';
import { chatRequestSchema } from '@/lib/chat/schema';
import { withApiKey } from '@/lib/http/chat-route';
import { parseWith } from '@/lib/http/validation';

/** Create chat completion (interface 4.1): one JSON object, or Server-Sent Events with `stream: true`. */
export const POST = withApiKey(async ({ input, db, apiKey, headers }) =>
  createChatCompletion({
    db,
    request: parseWith(chatRequestSchema, await input.json()),
    apiKeyId: apiKey.id,
    platform: input.header('sec-ch-ua-platform')?.replace(/^"|"$/g, '').slice(0, 64) || null,
    signal: input.signal,
    headers,
  }),
);
