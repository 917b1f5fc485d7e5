import { usageByModel } from '@/lib/chat/usage';
import { withApiKey } from '@/lib/http/chat-route';

/** The calling API key's usage per model (beyond the interface): `{object: "list", data: [{model, requests, prompt_tokens, completion_tokens}]}`. */
export const GET = withApiKey(async ({ db, apiKey, headers }) => ({
  status: 200,
  headers,
  json: { object: 'list', data: await usageByModel(db, apiKey.id) },
}));
