import { config } from '@/lib/config';
import { createResponse } from '@/lib/dialects/responses/create';
import { responseObjectSchema, responsesRequestSchema } from '@/lib/dialects/responses/schema';
import { clientPlatform } from '@/lib/http/request-view';
import { route } from '@/lib/http/route';

/** Create a response (OpenAI's Responses API, design §16): translated onto the providers' Chat Completions; stored unless `store: false`. */
export const POST = route(
  {
    auth: 'apiKey',
    format: 'chat',
    maxBody: () => config().TRIAD_MAX_CHAT_BODY_BYTES,
    body: responsesRequestSchema,
    doc: {
      summary: 'Create a response (OpenAI Responses API: JSON, or Server-Sent Events with stream: true)',
      tag: 'Responses',
      beyond: true,
      replies: {
        200: {
          schema: responseObjectSchema,
          description: 'A response object; with stream: true, text/event-stream of response.* events ending with response.completed',
          stream: true,
        },
      },
      errors: [400, 401, 402, 403, 404, 413, 429, 500, 502, 503],
      example: { model: 'triad-guide', instructions: 'Answer briefly.', input: 'How do aliases expire?', stream: true },
    },
  },
  async ({ request, db, apiKey, body }) =>
    createResponse({
      db,
      request: body,
      apiKey,
      platform: clientPlatform(request),
      signal: request.signal,
    }),
);
