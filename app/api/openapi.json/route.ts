/** The OpenAPI 3.1 document of every endpoint: the route table serves it, walking itself (lib/server/routes.ts). */
export { documentRoute as GET } from '@/lib/server/routes';
