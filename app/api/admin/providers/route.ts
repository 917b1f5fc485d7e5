import { z } from 'zod';
import { audit } from '@/lib/console/audit';
import { dataReply, json, route } from '@/lib/http/route';
import { addProvider, providerDetail, showProviders } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerCreateSchema, providerViewSchema } from '@/lib/providers/schema';

/** The providers (design §10), for administrators: an admin token or session, or the local admin secret. */
export const GET = route(
  {
    auth: 'instance',
    doc: {
      summary: 'List the providers, with their health and the models they serve',
      tag: 'Providers',
      beyond: true,
      replies: { 200: { schema: dataReply(z.array(providerViewSchema)), description: 'Every provider (never its API key)' } },
      errors: [401, 403],
    },
  },
  async ({ db }) => json({ data: await showProviders(db) }),
);

export const POST = route(
  {
    auth: 'instance',
    body: providerCreateSchema,
    doc: {
      summary: 'Add a provider (an OpenAI-compatible model server)',
      tag: 'Providers',
      beyond: true,
      replies: { 201: { schema: dataReply(providerViewSchema), description: 'The provider' } },
      errors: [400, 401, 403, 404, 409, 413],
    },
  },
  async ({ db, body, actor, address }) => {
    const created = await providerCall(() => addProvider(db, body));
    await audit(db, { orgId: null, actor, action: 'provider.add', object: `provider:${body.name}`, detail: providerDetail(body), address });
    return json({ data: created }, 201);
  },
);
