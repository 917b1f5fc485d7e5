import { dataReply, json, route } from '@/lib/http/route';
import { testProvider } from '@/lib/providers/admin';
import { providerCall } from '@/lib/providers/http';
import { providerParams, providerTestSchema } from '@/lib/providers/schema';

/** Probes the provider now (its health and models are stored, as the prober's would be). */
export const POST = route(
  {
    auth: 'instance',
    params: providerParams,
    doc: {
      summary: 'Probe a provider now (GET {base_url}/models); its health and models are stored',
      tag: 'Providers',
      beyond: true,
      replies: { 200: { schema: dataReply(providerTestSchema), description: 'The probe’s result' } },
      errors: [400, 401, 403, 404],
    },
  },
  async ({ db, params }) => json({ data: await providerCall(() => testProvider(db, params.name)) }),
);
