import type { IncomingMessage, ServerResponse } from 'node:http';
import { POST as chatCompletions } from '@/app/api/v1/chat/completions/route';
import { NODE_ROUTE, type NodeRoute } from '@/lib/http/route';
import { API_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from '@/lib/http/security-headers';
import { loaded, matchRoute } from './routes';

/*
 * The routes the server serves itself, past Next. Next's generic request pipeline (route matching, the
 * rules of next.config, adapting Node's request to a NextRequest, the app-route runtime, piping the
 * Response back) costs about 2 ms of CPU a request on a small machine: more than everything the chat
 * proxy itself does, on the hottest and most latency-sensitive endpoint. So `POST
 * /api/v1/chat/completions` goes straight to its route's Node door (lib/http/route.ts): the same
 * definition and handler Next calls through the Web door, without Web Request and Response objects,
 * after the headers next.config adds to every reply.
 *
 * Every other route of the API is served the same way (`tableRoute`): found in the route table
 * (./routes.ts), its module loaded from the server's own bundle when first asked for, its method's Node
 * door called with the path's parameters. So Next loads none of the API's modules — a second copy of
 * Triad's code, with its own compiled functions and schema objects, in the same process — and its
 * router's cost falls off every API request. HEAD is served by a route's GET door (Node's response
 * sends no body for it) and OPTIONS from its methods (./unrouted.ts), as Next answers them. The
 * dashboard's prerendered pages and the build's files are served past Next too (./prerendered.ts). Next
 * serves the plain handlers that have no definition (/api/ping, the framework's floor) and whatever else
 * those do not know (an unknown page's 404, say), and is loaded only when one of those is first asked
 * for (./main.ts). TRIAD_DIRECT_ROUTES=0 sends everything through Next.
 */
const TABLE: Record<string, NodeRoute> = {
  'POST /api/v1/chat/completions': chatCompletions[NODE_ROUTE],
};

/** The headers of every API reply, and of every page, as next.config.ts adds them. */
const API_HEADERS: [string, string][] = API_SECURITY_HEADERS.map((h) => [h.key, h.value]);
const PAGE_HEADERS: [string, string][] = PAGE_SECURITY_HEADERS.map((h) => [h.key, h.value]);

/** What the server serves past Next, as its "ready" line says: the chat route, and the API's routes through the route table. */
export const DIRECT_ROUTES = ['/api/**', '/organization/api/**'];

/** The direct route of this request, if it has one. */
export function directRoute(req: IncomingMessage): NodeRoute | undefined {
  if (req.method !== 'POST') return undefined;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return TABLE[`POST ${q < 0 ? url : url.slice(0, q)}`];
}

/**
 * Serves one request through its route's Node door, its reply's headers led by the request's
 * X-Request-Id (the id the server settled on, in the request's own header) and those of every reply. The
 * route answers its own errors in its format; should it fail all the same, the connection is cut, so
 * that the client cannot take what it got for a whole reply.
 */
export async function serveDirect(
  route: NodeRoute,
  req: IncomingMessage,
  res: ServerResponse,
  onError: (e: unknown) => void,
  params?: Record<string, string>,
) {
  try {
    const id = req.headers['x-request-id'];
    await route(req, res, typeof id === 'string' ? [['X-Request-Id', id], ...API_HEADERS] : API_HEADERS, params);
  } catch (e) {
    onError(e);
    res.destroy();
  }
}

/**
 * The Node door of the API route that serves `method` on `path` (HEAD: its GET's), with the path's
 * parameters; null when it has none (no route at the path, a method the route lacks, OPTIONS, a plain handler).
 */
export async function tableRoute(method: string, path: string): Promise<{ node: NodeRoute; params: Record<string, string> } | null> {
  const match = matchRoute(path);
  if (!match) return null;
  const served = method === 'HEAD' ? 'GET' : method;
  const operation = (await loaded(match.entry)).operations.find((o) => o.method === served);
  return operation?.node ? { node: operation.node, params: match.params } : null;
}

/** The headers of every API reply, for those the server sends itself (refused request targets, the health check while starting). */
export const apiHeaders = (): [string, string][] => API_HEADERS;
/** The headers of every page, for those the server serves itself (the prerendered pages). */
export const pageHeaders = (): [string, string][] => PAGE_HEADERS;
