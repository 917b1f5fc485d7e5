import { type AnyDefinition, json, NODE_ROUTE, type NodeRoute, route } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi';
import { ownOrigin } from '@/lib/http/peer';

/*
 * The route table: every API route of the app (app/**\/route.ts), by its path (`{id}` where Next's
 * folder says `[id]`), each module loaded when first needed. The OpenAPI document is built by walking
 * it (lib/openapi.ts), and the server asks it for the error format of a request it refuses before
 * Next (lib/http/request-guard.ts). A unit test keeps it equal to the route files.
 * In the order the API reference shows them.
 */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];
type RouteModule = Partial<Record<Method, unknown>>;
export type RouteEntry = { path: string; load: () => Promise<RouteModule> };

export const ROUTES: RouteEntry[] = [
  { path: '/api/v1/chat/completions', load: () => import('@/app/api/v1/chat/completions/route') },
  { path: '/api/v1/responses', load: () => import('@/app/api/v1/responses/route') },
  { path: '/api/v1/responses/{id}', load: () => import('@/app/api/v1/responses/[id]/route') },
  { path: '/api/v1/responses/{id}/input_items', load: () => import('@/app/api/v1/responses/[id]/input_items/route') },
  { path: '/api/v1/messages', load: () => import('@/app/api/v1/messages/route') },
  { path: '/api/v1/messages/count_tokens', load: () => import('@/app/api/v1/messages/count_tokens/route') },
  { path: '/api/v1/embeddings', load: () => import('@/app/api/v1/embeddings/route') },
  { path: '/api/v1/models', load: () => import('@/app/api/v1/models/route') },
  { path: '/api/v1/models/{id}', load: () => import('@/app/api/v1/models/[id]/route') },
  { path: '/api/v1/key', load: () => import('@/app/api/v1/key/route') },
  { path: '/api/v1/usage', load: () => import('@/app/api/v1/usage/route') },
  { path: '/api/v1/partner/nodes', load: () => import('@/app/api/v1/partner/nodes/route') },
  { path: '/api/v1/uptime', load: () => import('@/app/api/v1/uptime/route') },
  { path: '/api/v1/uptimes', load: () => import('@/app/api/v1/uptimes/route') },
  { path: '/api/v1/partner/details', load: () => import('@/app/api/v1/partner/details/route') },
  { path: '/api/v1/partner/detail', load: () => import('@/app/api/v1/partner/detail/route') },
  { path: '/api/v1/partner/summary', load: () => import('@/app/api/v1/partner/summary/route') },
  { path: '/api/v1/uptime/series', load: () => import('@/app/api/v1/uptime/series/route') },
  { path: '/api/v1/partner/earnings', load: () => import('@/app/api/v1/partner/earnings/route') },
  { path: '/api/v1/node/register', load: () => import('@/app/api/v1/node/register/route') },
  { path: '/api/v1/node/events', load: () => import('@/app/api/v1/node/events/route') },
  { path: '/organization/api/v1/alias/create', load: () => import('@/app/organization/api/v1/alias/create/route') },
  { path: '/organization/api/v1/aliases', load: () => import('@/app/organization/api/v1/aliases/route') },
  { path: '/organization/api/v1/alias/{id}', load: () => import('@/app/organization/api/v1/alias/[id]/route') },
  { path: '/organization/api/v1/alias/update/{id}', load: () => import('@/app/organization/api/v1/alias/update/[id]/route') },
  { path: '/organization/api/v1/alias/delete/{id}', load: () => import('@/app/organization/api/v1/alias/delete/[id]/route') },
  { path: '/api/health', load: () => import('@/app/api/health/route') },
  { path: '/api/credentials/check', load: () => import('@/app/api/credentials/check/route') },
  { path: '/api/metrics', load: () => import('@/app/api/metrics/route') },
  { path: '/api/openapi.json', load: async () => ({ GET: documentRoute }) },
  { path: '/api/demo/credentials', load: () => import('@/app/api/demo/credentials/route') },
  { path: '/api/admin', load: () => import('@/app/api/admin/route') },
  { path: '/api/ping', load: () => import('@/app/api/ping/route') },
  { path: '/api/admin/providers', load: () => import('@/app/api/admin/providers/route') },
  { path: '/api/admin/providers/{name}', load: () => import('@/app/api/admin/providers/[name]/route') },
  { path: '/api/admin/providers/{name}/test', load: () => import('@/app/api/admin/providers/[name]/test/route') },
  { path: '/api/admin/nodes/admit', load: () => import('@/app/api/admin/nodes/admit/route') },
  { path: '/api/admin/nodes/revoke', load: () => import('@/app/api/admin/nodes/revoke/route') },
  { path: '/api/session', load: () => import('@/app/api/session/route') },
  { path: '/api/session/end-all', load: () => import('@/app/api/session/end-all/route') },
  { path: '/api/org/api-keys', load: () => import('@/app/api/org/api-keys/route') },
  { path: '/api/org/api-keys/{id}', load: () => import('@/app/api/org/api-keys/[id]/route') },
  { path: '/api/org/tokens', load: () => import('@/app/api/org/tokens/route') },
  { path: '/api/org/tokens/{id}', load: () => import('@/app/api/org/tokens/[id]/route') },
  { path: '/api/org/partners', load: () => import('@/app/api/org/partners/route') },
  { path: '/api/org/partners/{id}/rotate-secret', load: () => import('@/app/api/org/partners/[id]/rotate-secret/route') },
  { path: '/api/org/partners/{id}/tunnels', load: () => import('@/app/api/org/partners/[id]/tunnels/route') },
  { path: '/api/org/partners/{id}/nodes/{node}', load: () => import('@/app/api/org/partners/[id]/nodes/[node]/route') },
  { path: '/api/org/settings', load: () => import('@/app/api/org/settings/route') },
  { path: '/api/org/usage', load: () => import('@/app/api/org/usage/route') },
  { path: '/api/org/audit', load: () => import('@/app/api/org/audit/route') },
  { path: '/api/org/requests', load: () => import('@/app/api/org/requests/route') },
  { path: '/api/instance/organizations', load: () => import('@/app/api/instance/organizations/route') },
  { path: '/api/instance/organizations/{id}', load: () => import('@/app/api/instance/organizations/[id]/route') },
  { path: '/api/instance/usage', load: () => import('@/app/api/instance/usage/route') },
  { path: '/api/instance/audit', load: () => import('@/app/api/instance/audit/route') },
];

/**
 * GET /api/openapi.json (its route file re-exports it): the document, built from this table once;
 * counted per client address. Defined here, so that the table that lists it needs no import of it.
 */
export const documentRoute = route(
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
  // The server's address as the client reached it (https behind a trusted proxy that says so), for the reference's "try it".
  async ({ request }) =>
    json(openApiDocument(await loadRoutes(), request.headers.get('host') ? ownOrigin(request) : new URL(request.url).origin), 200, {
      'Cache-Control': 'no-cache',
    }),
);

/**
 * One method of a route, loaded: its definition, or null for a plain handler that has none (/api/ping, the
 * framework's floor), and its door for Node's request and response (lib/http/route.ts), which the server's
 * dispatch calls (lib/server/direct-routes.ts); a plain handler has none and is served by Next.
 */
export type Operation = { method: Method; definition: AnyDefinition | null; node: NodeRoute | null };
export type LoadedRoute = { path: string; operations: Operation[] };

const definitionOf = (handler: unknown): AnyDefinition | null =>
  (handler as { definition?: AnyDefinition } | undefined)?.definition ?? null;
const nodeDoorOf = (handler: unknown): NodeRoute | null => (handler as { [NODE_ROUTE]?: NodeRoute } | undefined)?.[NODE_ROUTE] ?? null;

const loadedRoutes = new Map<RouteEntry, Promise<LoadedRoute>>();
/** A route with its operations, loaded once. */
export function loaded(entry: RouteEntry): Promise<LoadedRoute> {
  let route = loadedRoutes.get(entry);
  if (!route) {
    route = entry.load().then((exports) => ({
      path: entry.path,
      operations: METHODS.filter((m) => typeof exports[m] === 'function').map((method) => ({
        method,
        definition: definitionOf(exports[method]),
        node: nodeDoorOf(exports[method]),
      })),
    }));
    loadedRoutes.set(entry, route);
  }
  return route;
}

let all: Promise<LoadedRoute[]> | undefined;

/** Every route with its operations (loaded once). */
export function loadRoutes(): Promise<LoadedRoute[]> {
  all ??= Promise.all(ROUTES.map(loaded));
  return all;
}

const patterns = ROUTES.map((entry) => {
  const segments = entry.path.split('/');
  return { entry, segments, params: segments.filter((s) => s.startsWith('{')).length };
});

/** The route serving `path` (its segments, a `{param}` standing for any one); a fixed segment wins over a parameter, as in Next. */
export function routeAt(path: string): RouteEntry | null {
  return bestPattern(path.split('/'))?.entry ?? null;
}

function bestPattern(segments: string[]) {
  let best: (typeof patterns)[number] | null = null;
  for (const p of patterns) {
    if (p.segments.length !== segments.length) continue;
    if (!p.segments.every((s, i) => s === segments[i] || (s.startsWith('{') && segments[i] !== ''))) continue;
    if (!best || p.params < best.params) best = p;
  }
  return best;
}

/**
 * The route serving `path` and the values of its parameters, decoded as Next decodes a folder's
 * `[id]` (`/organization/api/v1/alias/a%20b` → `{ id: 'a b' }`); null when no route takes the path or a
 * segment is not valid percent-encoding (Next answers that one itself).
 */
export function matchRoute(path: string): { entry: RouteEntry; params: Record<string, string> } | null {
  const segments = path.split('/');
  const best = bestPattern(segments);
  if (!best) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const s = best.segments[i]!;
    if (!s.startsWith('{')) continue;
    try {
      params[s.slice(1, -1)] = decodeURIComponent(segments[i]!);
    } catch {
      return null;
    }
  }
  return { entry: best.entry, params };
}

/** The definition a path's requests are answered under (its first method's: a path's methods share a format), or null. */
export async function definitionAt(path: string): Promise<AnyDefinition | null> {
  const entry = routeAt(path);
  if (!entry) return null;
  return (await loaded(entry)).operations.find((o) => o.definition)?.definition ?? null;
}
