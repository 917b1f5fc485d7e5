import { idParams } from '@/lib/core/input';
import { audit } from '@/lib/console/audit';
import { revokeOrgApiKey, updateOrgApiKey } from '@/lib/console/org';
import { apiKeySchema, apiKeyUpdateBody } from '@/lib/console/schema';
import { notFound } from '@/lib/errors/link';
import { dataReply, json, route } from '@/lib/http/route';

/** Changes a key's controls (design §17): the models it may use, when it expires, its budget; null removes one. */
export const PATCH = route(
  {
    auth: 'orgToken',
    params: idParams,
    body: apiKeyUpdateBody,
    doc: {
      summary: "Change an API key's allow-list of models, expiry or budget (null removes one)",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(apiKeySchema), description: 'The key as listed' } },
      errors: [400, 401, 403, 404, 429],
      example: { models: ['llama-3.1-8b', 'triad-guide'], expires_at: 1798761600, budget_usd: '5.00', budget_period: 'month' },
    },
  },
  async ({ db, org, params, body, actor, address }) => {
    const key = await updateOrgApiKey(db, org.id, params.id, body);
    if (!key) throw notFound('no active API key of this organization has that id');
    await audit(db, { orgId: org.id, actor, action: 'api_key.update', object: `api_key:${params.id}`, detail: body, address });
    return json({ data: key });
  },
);

/** Revokes an API key of the organization: the chat API refuses it at once (401). */
export const DELETE = route(
  {
    auth: 'orgToken',
    params: idParams,
    doc: {
      summary: 'Revoke an API key (the chat API refuses it at once)',
      tag: 'Console',
      beyond: true,
      replies: { 200: { description: '{data: {revoked: true}}' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, params, actor, address }) => {
    if (!(await revokeOrgApiKey(db, org.id, params.id))) throw notFound('no active API key of this organization has that id');
    await audit(db, { orgId: org.id, actor, action: 'api_key.revoke', object: `api_key:${params.id}`, address });
    return json({ data: { revoked: true } });
  },
);
