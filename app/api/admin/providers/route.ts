import { json, route } from '@/lib/http/route';
import { addProvider, showProviders } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerCreateSchema } from '@/lib/providers/schema';

/** The providers (design §10), for administrators: this machine, with the admin secret. */
export const GET = route({ auth: 'admin' }, async ({ db }) => json({ data: await showProviders(db) }));

export const POST = route({ auth: 'admin', body: providerCreateSchema }, async ({ db, body }) =>
  json({ data: await providerCall(() => addProvider(db, body)) }, 201),
);
