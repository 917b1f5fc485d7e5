import { z } from 'zod';
import { config } from '@/lib/config';
import { countMessageTokens } from '@/lib/dialects/messages/create';
import { countTokensSchema } from '@/lib/dialects/messages/schema';
import { json, route } from '@/lib/http/route';

/** Count a message's input tokens (Anthropic's count_tokens), by Triad's tokenizer over the request as a provider would get it. */
export const POST = route(
  {
    auth: 'apiKey',
    format: 'anthropic',
    maxBody: () => config().TRIAD_MAX_CHAT_BODY_BYTES,
    body: countTokensSchema,
    doc: {
      summary: "Count a message's input tokens",
      tag: 'Messages',
      beyond: true,
      replies: { 200: { schema: z.object({ input_tokens: z.number().int() }), description: '{input_tokens}' } },
      errors: [400, 401, 413, 429],
    },
  },
  async ({ body }) => json(countMessageTokens(body)),
);
