import { json, route } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi';

/** The OpenAPI 3.1 document of every endpoint, generated from the zod schemas (once); counted per client address. */
export const GET = route({ auth: 'none', db: false }, async ({ request }) =>
  json(openApiDocument(new URL(request.url).origin), 200, { 'Cache-Control': 'no-cache' }),
);
