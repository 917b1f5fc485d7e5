import { modelListSchema } from '@/lib/chat/schema';
import { listModels } from '@/lib/providers/router';
import { json, route } from '@/lib/http/route';

/** The models served to the key's organization, OpenAI-style (beyond the interface), each with its providers' counts. */
export const GET = route(
  {
    auth: 'apiKey',
    format: 'chat',
    doc: {
      summary: 'List the models served',
      tag: 'Chat',
      beyond: true,
      replies: { 200: { schema: modelListSchema, description: 'The models served' } },
      errors: [401, 429],
    },
  },
  async ({ db, apiKey }) => json({ object: 'list', data: await listModels(db, apiKey) }),
);
