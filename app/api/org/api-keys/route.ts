import { z } from 'zod';
import { audit } from '@/lib/console/audit';
import { createOrgApiKey, listApiKeys } from '@/lib/console/org';
import { apiKeyCreateBody, apiKeyCreatedSchema, apiKeySchema } from '@/lib/console/schema';
import { dataReply, json, route } from '@/lib/http/route';

/** The organization's API keys: name, prefix, rate, created, last used, completions in the last 24 h, revoked. */
export const GET = route(
  {
    auth: 'orgToken',
    doc: {
      summary: "The organization's API keys, with last use and completions in the last 24 h",
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(apiKeySchema)), description: 'Newest first' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org }) => json({ data: await listApiKeys(db, org.id) }),
);

/** A new API key; `key` is shown in this reply only. */
export const POST = route(
  {
    auth: 'orgToken',
    body: apiKeyCreateBody,
    doc: {
      summary: 'Create an API key (shown once)',
      tag: 'Console',
      beyond: true,
      replies: { 201: { schema: dataReply(apiKeyCreatedSchema), description: 'The key, in this reply only' } },
      errors: [400, 401, 403, 404, 429],
      example: { name: 'web app', rpm: 120, models: ['llama-3.1-8b'], expires_at: 1798761600 },
    },
  },
  async ({ db, org, body, actor, address }) => {
    const created = await createOrgApiKey(db, org.id, body);
    await audit(db, {
      orgId: org.id,
      actor,
      action: 'api_key.create',
      object: `api_key:${created.id}`,
      detail: {
        name: body.name,
        rpm: body.rpm ?? null,
        models: body.models ?? null,
        expires_at: body.expires_at ?? null,
        budget_usd: created.budget_usd,
        budget_period: created.budget_period,
      },
      address,
    });
    return json({ data: created }, 201);
  },
);
