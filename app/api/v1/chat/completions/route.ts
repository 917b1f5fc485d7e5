import { createChatCompletion } from '@/lib/chat/complete';
import { chatRequestSchema } from '@/lib/chat/schema';
import { route } from '@/lib/http/route';

/** Create chat completion (interface 4.1): one JSON object, or Server-Sent Events with `stream: true`. */
export const POST = route({ auth: 'apiKey', format: 'chat', body: chatRequestSchema }, async ({ request, db, apiKey, body }) =>
  createChatCompletion({
    db,
    request: body,
    apiKeyId: apiKey.id,
    platform: request.headers.get('sec-ch-ua-platform')?.replace(/^"|"$/g, '').slice(0, 64) || null,
    signal: request.signal,
  }),
);
