import { json, route } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi';
import { loadRoutes } from '@/lib/server/routes';

/** The OpenAPI 3.1 document of every endpoint, built from the route table's definitions (once); counted per client address. */
export const GET = route(
  {
    auth: 'none',
    db: false,
    doc: {
      summary: 'This document: every route, from the route table',
      tag: 'Operations',
      beyond: true,
      replies: { 200: { description: 'The OpenAPI 3.1 document' } },
      errors: [429],
    },
  },
  async ({ request }) => json(openApiDocument(await loadRoutes(), new URL(request.url).origin), 200, { 'Cache-Control': 'no-cache' }),
);
