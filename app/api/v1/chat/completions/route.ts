import { createChatCompletion } from '@/lib/chat/complete';
import { chatRequestSchema } from '@/lib/chat/schema';
import { readJsonBody } from '@/lib/http/body';
import { withApiKey } from '@/lib/http/chat-route';
import { parseWith } from '@/lib/http/validation';

/** Create chat completion (spec 4.1): one JSON object, or Server-Sent Events with `stream: true`. */
export const POST = withApiKey(async ({ request, db, apiKey, headers }) =>
  createChatCompletion({
    db,
    request: parseWith(chatRequestSchema, await readJsonBody(request)),
    apiKeyId: apiKey.id,
    platform: request.headers.get('sec-ch-ua-platform')?.replace(/^"|"$/g, '').slice(0, 64) || null,
    signal: request.signal,
    headers,
  }),
);
