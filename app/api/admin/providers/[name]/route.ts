import { z } from 'zod';
import { audit } from '@/lib/console/audit';
import { dataReply, json, route } from '@/lib/http/route';
import { changeProvider, deleteProvider, providerDetail, showProvider } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerParams, providerUpdateSchema, providerViewSchema } from '@/lib/providers/schema';

export const GET = route(
  {
    auth: 'instance',
    params: providerParams,
    doc: {
      summary: 'One provider',
      tag: 'Providers',
      beyond: true,
      replies: { 200: { schema: dataReply(providerViewSchema), description: 'The provider' } },
      errors: [400, 401, 403, 404],
    },
  },
  async ({ db, params }) => json({ data: await providerCall(() => showProvider(db, params.name)) }),
);

export const PATCH = route(
  {
    auth: 'instance',
    params: providerParams,
    body: providerUpdateSchema,
    doc: {
      summary: 'Change a provider (api_key: null removes it; node: null unlinks it)',
      tag: 'Providers',
      beyond: true,
      replies: { 200: { schema: dataReply(providerViewSchema), description: 'The provider' } },
      errors: [400, 401, 403, 404, 409, 413],
    },
  },
  async ({ db, params, body, actor, address }) => {
    const changed = await providerCall(() => changeProvider(db, params.name, body));
    await audit(db, {
      orgId: null,
      actor,
      action: 'provider.update',
      object: `provider:${params.name}`,
      detail: providerDetail(body),
      address,
    });
    return json({ data: changed });
  },
);

export const DELETE = route(
  {
    auth: 'instance',
    params: providerParams,
    doc: {
      summary: 'Remove a provider',
      tag: 'Providers',
      beyond: true,
      replies: { 200: { schema: dataReply(z.object({ removed: z.literal(true), name: z.string() })), description: 'Removed' } },
      errors: [400, 401, 403, 404],
    },
  },
  async ({ db, params, actor, address }) => {
    const removed = await providerCall(() => deleteProvider(db, params.name));
    await audit(db, { orgId: null, actor, action: 'provider.remove', object: `provider:${params.name}`, address });
    return json({ data: removed });
  },
);
