import { json, route } from '@/lib/http/route';
import { testProvider } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerParams } from '@/lib/providers/schema';

/** Probes the provider now (its health and models are stored, as the prober's would be). */
export const POST = route({ auth: 'instance', params: providerParams }, async ({ db, params }) =>
  json({ data: await providerCall(() => testProvider(db, params.name)) }),
);
