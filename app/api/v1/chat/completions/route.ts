import { createChatCompletion } from '@/lib/dialects/chat';
import { config } from '@/lib/config';
import { chatCompletionSchema, chatRequestSchema } from '@/lib/chat/schema';
import { clientPlatform } from '@/lib/http/request-view';
import { route } from '@/lib/http/route';

/** Create chat completion (interface 4.1): one JSON object, or Server-Sent Events with `stream: true`. */
export const POST = route(
  {
    auth: 'apiKey',
    format: 'chat',
    maxBody: () => config().TRIAD_MAX_CHAT_BODY_BYTES,
    body: chatRequestSchema,
    doc: {
      summary: 'Create a chat completion (JSON, or Server-Sent Events with stream: true)',
      tag: 'Chat',
      replies: {
        200: {
          schema: chatCompletionSchema,
          description: 'A chat.completion; with stream: true, text/event-stream of chat.completion.chunk events ending with data: [DONE]',
          stream: true,
        },
      },
      errors: [400, 401, 402, 403, 404, 413, 429, 500, 502, 503],
      example: {
        model: 'triad-guide',
        messages: [
          { role: 'system', content: 'You are a helpful assistant.' },
          { role: 'user', content: 'How do aliases expire?' },
        ],
        temperature: 0.7,
        max_tokens: 256,
        stream: true,
        stream_options: { include_usage: true },
      },
    },
  },
  async ({ request, db, apiKey, body, bodyText }) =>
    createChatCompletion({
      db,
      request: body,
      text: bodyText,
      apiKeyId: apiKey.id,
      tenant: apiKey,
      platform: clientPlatform(request),
      signal: request.signal,
    }),
);
