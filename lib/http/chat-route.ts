import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiKeyPrincipal, findApiKey } from '@/lib/auth/credentials';
import { cachedPrincipal } from '@/lib/auth/principal-cache';
import { bearerToken, hashToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { type Db, getDb } from '@/lib/db/client';
import {
  bodyTooLarge,
  ChatError,
  chatErrorReply,
  internalChatError,
  invalidApiKey,
  invalidRequest,
  rateLimited,
  unknownKeysLimited,
} from '@/lib/errors/chat';
import { log } from '@/lib/log';
import { consume, rateLimitHeaders } from '@/lib/rate-limit';
import { BodyTooLargeError, MalformedJsonError, readJsonBody, readNodeJsonBody } from './body';
import { clientAddress } from './peer';
import { type Reply, sendNodeReply, toResponse } from './reply';
import { lookUpCredential } from './unknown-credentials';
import { BadInputError } from './validation';

/*
 * The chat group's route wrapper: `Authorization: Bearer <API_KEY>` (else 401 invalid_api_key),
 * the key's request rate (its own `rpm`, else TRIAD_DEFAULT_RPM, a minute) with X-RateLimit-*
 * headers on every reply and Retry-After on 429, and the single place where any error becomes
 * `{error:{message,type,code}}` — never a stack trace.
 *
 * The handler sees the request only through ChatInput and answers with a Reply, so that one
 * handler serves both Next's router (a Web Request in, a Response out: the exported function) and
 * the server's direct dispatch (Node's request and response: the same function's NODE_HANDLER).
 */

/** What a chat handler reads of its request. */
export type ChatInput = {
  header(name: string): string | null;
  /** The JSON body, within TRIAD_MAX_BODY_BYTES. */
  json(): Promise<unknown>;
  /** Fires when the client goes away before the reply is complete. */
  signal: AbortSignal;
  path: string;
};
export type ChatContext = { input: ChatInput; db: Db; apiKey: ApiKeyPrincipal; headers: Record<string, string> };

/** Where a route handler made by withApiKey keeps its variant for Node's request and response. */
export const NODE_HANDLER = Symbol.for('triad.nodeHandler');
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, baseHeaders: [string, string][]) => Promise<void>;

export function withApiKey(handler: (ctx: ChatContext) => Promise<Reply>) {
  const web = async (request: Request): Promise<Response> => {
    const input: ChatInput = {
      header: (name) => request.headers.get(name),
      json: () => readJsonBody(request),
      signal: request.signal,
      get path() {
        return new URL(request.url).pathname;
      },
    };
    const reply = await answer(handler, input);
    try {
      return toResponse(reply);
    } catch (e) {
      return toResponse(lastResort(e, input.path));
    }
  };
  const node: NodeHandler = async (req, res, baseHeaders) => {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort(new DOMException('The client closed the connection', 'AbortError'));
    });
    const input: ChatInput = {
      header: (name) => {
        const v = req.headers[name];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
      json: () => readNodeJsonBody(req),
      signal: gone.signal,
      get path() {
        return (req.url ?? '/').split('?')[0]!;
      },
    };
    const reply = await answer(handler, input);
    try {
      await sendNodeReply(res, reply, baseHeaders, gone.signal);
    } catch (e) {
      const fallback = lastResort(e, input.path);
      if (res.headersSent) res.destroy();
      else await sendNodeReply(res, fallback, baseHeaders, gone.signal);
    }
  };
  return Object.assign(web, { [NODE_HANDLER]: node });
}

/** A reply that could not be written (say, a body JSON cannot hold) becomes this group's 500, on either path. */
function lastResort(e: unknown, path: string): Reply {
  log.error('reply failed', { path, error: (e as Error)?.message });
  return chatErrorReply(internalChatError());
}

async function answer(handler: (ctx: ChatContext) => Promise<Reply>, input: ChatInput): Promise<Reply> {
  let headers: Record<string, string> = {};
  try {
    const key = bearerToken(input.header('authorization'));
    if (!key) throw invalidApiKey('Missing API key. Send it as `Authorization: Bearer <API_KEY>`.');
    const db = await getDb();
    const hash = hashToken(key);
    const apiKey = await cachedPrincipal(`key:${hash}`, config().TRIAD_AUTH_CACHE_TTL_MS, () =>
      lookUpCredential(clientAddress({ headers: { get: input.header } }), unknownKeysLimited, () => findApiKey(db, key)),
    );
    if (!apiKey) throw invalidApiKey();
    const decision = await consume('chat', hash, apiKey.rpm ?? config().TRIAD_DEFAULT_RPM, 60);
    headers = rateLimitHeaders(decision);
    if (!decision.allowed) throw rateLimited(decision.retryAfterS, headers);
    return await handler({ input, db, apiKey, headers });
  } catch (e) {
    return chatErrorReply(toChatError(e, input), headers);
  }
}

function toChatError(e: unknown, input: ChatInput): ChatError {
  if (e instanceof ChatError) return e;
  if (e instanceof BadInputError) return invalidRequest(e.detail, e.param);
  if (e instanceof MalformedJsonError) return invalidRequest(`${e.message}.`);
  if (e instanceof BodyTooLargeError) return bodyTooLarge(e.limit);
  // A client that hung up (say, half-way through its body) reads no reply: nothing went wrong here.
  if (input.signal.aborted) {
    log.debug('client went away', { path: input.path });
    return invalidRequest('The client went away.');
  }
  log.error('unhandled error', { path: input.path, error: (e as Error)?.message });
  return internalChatError();
}
