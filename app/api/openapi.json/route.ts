import { linkRoute } from '@/lib/http/link-route';
import { openApiDocument } from '@/lib/openapi';

/** The OpenAPI 3.1 document of every endpoint, generated from the zod schemas (once); counted per client address. */
export const GET = linkRoute(
  async ({ request }) => Response.json(openApiDocument(new URL(request.url).origin), { headers: { 'Cache-Control': 'no-cache' } }),
  { perAddress: true },
);
