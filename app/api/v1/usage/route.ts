import { usageByModel } from '@/lib/chat/usage';
import { json, route } from '@/lib/http/route';

/** The calling API key's usage per model (beyond the interface): `{object: "list", data: [{model, requests, prompt_tokens, completion_tokens}]}`. */
export const GET = route(
  {
    auth: 'apiKey',
    format: 'chat',
    doc: {
      summary: "The calling key's usage per model",
      tag: 'Chat',
      beyond: true,
      replies: { 200: { description: '{object: "list", data: [{model, requests, prompt_tokens, completion_tokens}]}' } },
      errors: [401, 429],
    },
  },
  async ({ db, apiKey }) => json({ object: 'list', data: await usageByModel(db, apiKey.id) }),
);
