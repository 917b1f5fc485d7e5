import { listModels } from '@/lib/providers/router';
import { modelInfoSchema } from '@/lib/chat/schema';
import { modelNotFound } from '@/lib/errors/chat';
import { json, route } from '@/lib/http/route';
import { idParams } from '@/lib/core/input';

/**
 * One model the key's organization can be served (OpenAI's retrieve model): 404 model_not_found for any
 * other, one that only another organization's private node serves included (design §20).
 */
export const GET = route(
  {
    auth: 'apiKey',
    format: 'chat',
    params: idParams,
    doc: {
      summary: 'Retrieve a model served here',
      tag: 'Chat',
      beyond: true,
      replies: { 200: { schema: modelInfoSchema, description: 'The model' } },
      errors: [400, 401, 404, 429],
    },
  },
  async ({ db, apiKey, params }) => {
    const model = (await listModels(db, apiKey)).find((m) => m.id === params.id);
    if (!model) throw modelNotFound(params.id);
    return json(model);
  },
);
