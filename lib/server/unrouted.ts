import { ApiError } from '@/lib/core/errors';
import { anthropicErrorBody } from '@/lib/errors/anthropic';
import { chatErrorBody } from '@/lib/errors/chat';
import { linkErrorBody } from '@/lib/errors/link';
import { loaded, routeAt } from './routes';

/*
 * Requests under the API groups that no route takes (design §16): an unknown path answers 404, and a
 * known path asked with a method it does not have 405 with `Allow`, each in its group's JSON shape —
 * never the framework's HTML page or an empty 405. Everything else (pages, assets, the routes'
 * own methods) goes on to Next.
 */

/** The API's paths, its roots included (Claude Code asks `HEAD /api` before it starts). */
const API = /^\/(api|organization\/api)(\/|$)/;
/** The chat group's paths (OpenAI's error shape); the rest of the API answers in the statistics and alias groups' shape. */
const CHAT = /^\/api\/v1\/(chat|responses|models|embeddings|completions|key)(\/|$)/;
/** Anthropic's Messages API: its own error shape. */
const MESSAGES = /^\/api\/v1\/messages(\/|$)/;

/** A reply the server makes itself: a 404 or 405 in the group's JSON shape, or an OPTIONS' 204 (no body). */
export type Unrouted = { status: 204 | 404 | 405; headers: Record<string, string>; body?: unknown };

/** A path as an SDK with the server's bare address for its base URL asks it (`/v1/chat/completions`, Claude Code's `/v1/messages`). */
const BARE_V1 = /^\/v1(\/|$)/;

/** The reply to a request under the API that no route takes, or null when one does (or the path is not the API's). */
export async function unrouted(method: string, path: string): Promise<Unrouted | null> {
  if (BARE_V1.test(path)) return misplaced(method, path);
  if (!API.test(path)) return null;
  const shape = MESSAGES.test(path) ? anthropicErrorBody : CHAT.test(path) ? chatErrorBody : null;
  const entry = routeAt(path);
  if (!entry) {
    const e = shape
      ? new ApiError(404, `Unknown request URL: ${method} ${path}. The API reference (/docs) lists the paths served here.`, {
          type: 'invalid_request_error',
          code: 'unknown_url',
        })
      : new ApiError(404, 'NOT FOUND', { detail: `no route at ${path}; the API reference (/docs) lists them` });
    return { status: 404, headers: {}, body: shape ? shape(e) : linkErrorBody(e) };
  }
  const allowed = (await loaded(entry)).operations.map((o) => o.method);
  const has = (m: string) => (allowed as string[]).includes(m) || (m === 'HEAD' && allowed.includes('GET')) || m === 'OPTIONS';
  if (has(method)) return null;
  const detail = `${method} is not allowed on ${path}; it takes ${allowed.join(', ')}`;
  const e = shape
    ? new ApiError(405, `${detail}.`, { type: 'invalid_request_error', code: 'method_not_allowed' })
    : new ApiError(405, 'METHOD NOT ALLOWED', { detail });
  return { status: 405, headers: { Allow: allowList(allowed).join(', ') }, body: shape ? shape(e) : linkErrorBody(e) };
}

/**
 * `/v1/…` without `/api`: a client whose base URL lacks it. A 404 in the dialect's shape (Anthropic's for
 * `/v1/messages`, OpenAI's otherwise) that says which base URL to give, not the dashboard's HTML page.
 */
function misplaced(method: string, path: string): Unrouted {
  const messages = MESSAGES.test(`/api${path}`);
  const here = routeAt(`/api${path}`) ? ` (here it is ${method} /api${path})` : '';
  const e = new ApiError(
    404,
    `Unknown request URL: ${method} ${path}${here}. Triad's API is under /api: give OpenAI-style clients the base URL <this server>/api/v1, Anthropic-style ones <this server>/api.`,
    { type: 'invalid_request_error', code: 'unknown_url' },
  );
  return { status: 404, headers: {}, body: messages ? anthropicErrorBody(e) : chatErrorBody(e) };
}

/** A route's allowed methods: its own, HEAD where it has GET, and OPTIONS (as Next answers them). */
const allowList = (allowed: string[]) => [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];

/**
 * The answer to `OPTIONS` on a route of the API's table: 204 with its `Allow`, as Next answers it (the
 * methods sorted; no cross-origin headers: the API is called from servers and the app's own pages). Null
 * when no route with a definition takes the path (Next answers: /api/ping, the pages).
 */
export async function options(path: string): Promise<Unrouted | null> {
  const entry = routeAt(path);
  const allowed = entry ? (await loaded(entry)).operations.filter((o) => o.node).map((o) => o.method) : [];
  return allowed.length ? { status: 204, headers: { Allow: allowList(allowed).sort().join(', ') } } : null;
}
