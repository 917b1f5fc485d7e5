import { idParams } from '@/lib/core/input';
import { responseObjectSchema } from '@/lib/dialects/responses/schema';
import { deleteResponse, getResponse } from '@/lib/dialects/responses/store';
import { responseNotFound } from '@/lib/errors/chat';
import { json, route } from '@/lib/http/route';

/** A stored response of the key's organization (another organization's is not found, as an id that never existed). */
export const GET = route(
  {
    auth: 'apiKey',
    format: 'chat',
    params: idParams,
    doc: {
      summary: 'Retrieve a stored response',
      tag: 'Responses',
      beyond: true,
      replies: { 200: { schema: responseObjectSchema, description: 'The response as it was returned' } },
      errors: [400, 401, 404, 429],
    },
  },
  async ({ db, apiKey, params }) => {
    const body = await getResponse(db, apiKey.orgId, params.id);
    if (!body) throw responseNotFound(params.id);
    return json(body);
  },
);

export const DELETE = route(
  {
    auth: 'apiKey',
    format: 'chat',
    params: idParams,
    doc: {
      summary: 'Delete a stored response (and its items)',
      tag: 'Responses',
      beyond: true,
      replies: { 200: { description: '{id, object: "response", deleted: true}' } },
      errors: [400, 401, 404, 429],
    },
  },
  async ({ db, apiKey, params }) => {
    if (!(await deleteResponse(db, apiKey.orgId, params.id))) throw responseNotFound(params.id);
    return json({ id: params.id, object: 'response', deleted: true });
  },
);
