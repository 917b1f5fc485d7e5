import type { IncomingMessage, ServerResponse } from 'node:http';
import { POST as chatCompletions } from '@/app/api/v1/chat/completions/route';
import { NODE_ROUTE, type NodeRoute } from '@/lib/http/route';
import { SECURITY_HEADERS } from '@/lib/http/security-headers';

/*
 * The routes the server serves itself, past Next. Next's generic request pipeline (route matching, the
 * rules of next.config, adapting Node's request to a NextRequest, the app-route runtime, piping the
 * Response back) costs about 2 ms of CPU a request on a small machine: more than everything the chat
 * proxy itself does, on the hottest and most latency-sensitive endpoint. So `POST
 * /api/v1/chat/completions` goes straight to its route's Node door (lib/http/route.ts): the same
 * definition and handler Next calls through the Web door, without Web Request and Response objects,
 * after the headers next.config adds to every reply. Every other request, and every other method on
 * that path, goes through Next. TRIAD_DIRECT_ROUTES=0 sends everything through Next.
 */
const TABLE: Record<string, NodeRoute> = {
  'POST /api/v1/chat/completions': chatCompletions[NODE_ROUTE],
};

/** The headers of every reply, as next.config.ts adds them. */
const BASE_HEADERS: [string, string][] = SECURITY_HEADERS.map((h) => [h.key, h.value]);

export const DIRECT_ROUTES = Object.keys(TABLE);

/** The direct route of this request, if it has one. */
export function directRoute(req: IncomingMessage): NodeRoute | undefined {
  if (req.method !== 'POST') return undefined;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return TABLE[`POST ${q < 0 ? url : url.slice(0, q)}`];
}

/**
 * Serves one request through its route's Node door. The route answers its own errors in its format;
 * should it fail all the same, the connection is cut, so that the client cannot take what it got for a
 * whole reply.
 */
export async function serveDirect(route: NodeRoute, req: IncomingMessage, res: ServerResponse, onError: (e: unknown) => void) {
  try {
    await route(req, res, BASE_HEADERS);
  } catch (e) {
    onError(e);
    res.destroy();
  }
}

/** The headers of every reply, for those the server sends itself (refused request targets). */
export const baseHeaders = (): [string, string][] => BASE_HEADERS;
