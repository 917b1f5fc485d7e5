import { json, route } from '@/lib/http/route';
import { changeProvider, deleteProvider, showProvider } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerParams, providerUpdateSchema } from '@/lib/providers/schema';

export const GET = route({ auth: 'admin', params: providerParams }, async ({ db, params }) =>
  json({ data: await providerCall(() => showProvider(db, params.name)) }),
);

export const PATCH = route({ auth: 'admin', params: providerParams, body: providerUpdateSchema }, async ({ db, params, body }) =>
  json({ data: await providerCall(() => changeProvider(db, params.name, body)) }),
);

export const DELETE = route({ auth: 'admin', params: providerParams }, async ({ db, params }) =>
  json({ data: await providerCall(() => deleteProvider(db, params.name)) }),
);
