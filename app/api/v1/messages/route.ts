import { config } from '@/lib/config';
import { createMessage } from '@/lib/dialects/messages/create';
import { messageObjectSchema, messagesRequestSchema } from '@/lib/dialects/messages/schema';
import { clientPlatform } from '@/lib/http/request-view';
import { route } from '@/lib/http/route';

/** Create a message (Anthropic's Messages API, design §16): the key as `x-api-key` or a bearer token; translated onto the providers' Chat Completions. */
export const POST = route(
  {
    auth: 'apiKey',
    format: 'anthropic',
    maxBody: () => config().TRIAD_MAX_CHAT_BODY_BYTES,
    body: messagesRequestSchema,
    doc: {
      summary: 'Create a message (Anthropic Messages API: JSON, or Server-Sent Events with stream: true)',
      tag: 'Messages',
      beyond: true,
      replies: {
        200: {
          schema: messageObjectSchema,
          description: "A message; with stream: true, text/event-stream of Anthropic's events (message_start … message_stop)",
          stream: true,
        },
      },
      errors: [400, 401, 402, 403, 404, 413, 429, 500, 502, 503],
      example: {
        model: 'triad-guide',
        max_tokens: 256,
        system: 'You are a helpful assistant.',
        messages: [{ role: 'user', content: 'How do aliases expire?' }],
        stream: true,
      },
    },
  },
  async ({ request, db, apiKey, body }) =>
    createMessage({
      db,
      request: body,
      apiKey,
      platform: clientPlatform(request),
      signal: request.signal,
      version: request.headers.get('anthropic-version'),
      beta: request.headers.get('anthropic-beta'),
    }),
);
