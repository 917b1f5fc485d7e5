import { openApiDocument } from '@/lib/openapi';

/** The OpenAPI 3.1 document of every endpoint, generated from the zod schemas. */
export function GET(request: Request) {
  return Response.json(openApiDocument(new URL(request.url).origin), { headers: { 'Cache-Control': 'no-cache' } });
}
