import { config } from '@/lib/config';
import { createEmbeddings, embeddingsReplySchema, embeddingsRequestSchema } from '@/lib/embeddings/create';
import { route } from '@/lib/http/route';

/** Create embeddings (OpenAI's embeddings API), routed to the providers that serve the model. */
export const POST = route(
  {
    auth: 'apiKey',
    format: 'chat',
    maxBody: () => config().TRIAD_MAX_CHAT_BODY_BYTES,
    body: embeddingsRequestSchema,
    doc: {
      summary: 'Create embeddings',
      tag: 'Chat',
      beyond: true,
      replies: { 200: { schema: embeddingsReplySchema, description: 'The embeddings, in the order of the input' } },
      errors: [400, 401, 402, 403, 404, 413, 429, 502, 503],
      example: { model: 'nomic-embed-text', input: ['The first text', 'The second text'] },
    },
  },
  async ({ db, apiKey, body, request }) => createEmbeddings({ db, request: body, apiKey, signal: request.signal }),
);
