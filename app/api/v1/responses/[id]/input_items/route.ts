import { idParams } from '@/lib/core/input';
import { inputItemsQuery } from '@/lib/dialects/responses/schema';
import { inputItems } from '@/lib/dialects/responses/store';
import { responseNotFound } from '@/lib/errors/chat';
import { json, route } from '@/lib/http/route';

/** The input items of a stored response, a page at a time. */
export const GET = route(
  {
    auth: 'apiKey',
    format: 'chat',
    params: idParams,
    query: inputItemsQuery,
    doc: {
      summary: "List a stored response's input items",
      tag: 'Responses',
      beyond: true,
      replies: { 200: { description: '{object: "list", data: [items], first_id, last_id, has_more}' } },
      errors: [400, 401, 404, 429],
    },
  },
  async ({ db, apiKey, params, query }) => {
    const page = await inputItems(db, apiKey.orgId, params.id, query);
    if (!page) throw responseNotFound(params.id);
    return json(page);
  },
);
