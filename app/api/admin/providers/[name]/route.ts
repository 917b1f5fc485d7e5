import { audit } from '@/lib/console/audit';
import { json, route } from '@/lib/http/route';
import { changeProvider, deleteProvider, providerDetail, showProvider } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerParams, providerUpdateSchema } from '@/lib/providers/schema';

export const GET = route({ auth: 'instance', params: providerParams }, async ({ db, params }) =>
  json({ data: await providerCall(() => showProvider(db, params.name)) }),
);

export const PATCH = route(
  { auth: 'instance', params: providerParams, body: providerUpdateSchema },
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

export const DELETE = route({ auth: 'instance', params: providerParams }, async ({ db, params, actor, address }) => {
  const removed = await providerCall(() => deleteProvider(db, params.name));
  await audit(db, { orgId: null, actor, action: 'provider.remove', object: `provider:${params.name}`, address });
  return json({ data: removed });
});
