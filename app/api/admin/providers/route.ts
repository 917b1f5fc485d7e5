import { audit } from '@/lib/console/audit';
import { json, route } from '@/lib/http/route';
import { addProvider, providerDetail, showProviders } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerCreateSchema } from '@/lib/providers/schema';

/** The providers (design §10), for administrators: an admin token or session, or the local admin secret. */
export const GET = route({ auth: 'instance' }, async ({ db }) => json({ data: await showProviders(db) }));

export const POST = route({ auth: 'instance', body: providerCreateSchema }, async ({ db, body, actor, address }) => {
  const created = await providerCall(() => addProvider(db, body));
  await audit(db, { orgId: null, actor, action: 'provider.add', object: `provider:${body.name}`, detail: providerDetail(body), address });
  return json({ data: created }, 201);
});
