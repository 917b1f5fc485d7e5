import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { ApiError, type WireFormat } from '@/lib/core/errors';
import { BadInputError, parseWith } from '@/lib/core/input';
import type { Reply } from '@/lib/core/reply';
import { type Db, getDb } from '@/lib/db/client';
import { isDatabaseDown } from '@/lib/db/outage';
import { anthropicFormat } from '@/lib/errors/anthropic';
import { chatFormat } from '@/lib/errors/chat';
import { linkFormat } from '@/lib/errors/link';
import { log } from '@/lib/log';
import { notePrincipal, type RequestContext } from '@/lib/observability/context';
import { type Actor, type Auth, type AuthSettings, authenticate, callerOf, partnerNamedById, partnerOf, type Principals } from './auth';
import { BodyTooLargeError, MalformedJsonError } from './body';
import { clientAddress } from './peer';
import { sendNodeReply, toResponse } from './reply';
import { NodeRequestView, type RequestView, WebRequestView } from './request-view';
import { queryObject } from './validation';

/*
 * The one route definition of every API route: who may call it (`auth`, ./auth.ts), how its calls are
 * counted (`limit`), the wire format of its errors (`format`), the schemas of its query and body, and
 * its entry in the OpenAPI document (`doc`, walked by lib/openapi.ts). The definition gives one handler
 * two doors: the Web function Next's router calls (a Request in, a Response out) and, under NODE_ROUTE,
 * the function for Node's request and response that the server's direct dispatch calls
 * (lib/server/direct-routes.ts). The handler sees the request only through RequestView and answers
 * with a Reply, so both doors run the same code and send the same bytes.
 */
export type { Auth, RequestView };
export type Format = 'link' | 'chat' | 'anthropic';

export type Tag = 'Chat' | 'Responses' | 'Messages' | 'Partner statistics' | 'Aliases' | 'Operations' | 'Providers' | 'Console';
/** A route's entry in the OpenAPI document (its parameters, body and security come from the definition itself). */
export type RouteDoc = {
  summary: string;
  tag: Tag;
  /** Beyond the service interface: a Triad extension. */
  beyond?: boolean;
  /** The replies that are not errors, by status: what they hold (`schema`, else only described); `stream`: also Server-Sent Events. */
  replies: Record<number, { description: string; schema?: z.ZodType; stream?: boolean }>;
  /** The error statuses it answers, each in the route's format. */
  errors: number[];
  /** A request body as a person would send it, for the API reference. */
  example?: unknown;
  /** Query parameters that repeat (`partner_node_id[]=a&partner_node_id[]=b`). */
  repeated?: string[];
};

export type RouteDefinition<A extends Auth, Q, B, P> = AuthSettings & {
  auth: A;
  /** Error shape: `link` (`{error:{message,status,detail}}`, the default) or `chat` (`{error:{message,type,code,param}}`). */
  format?: Format;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** The path's parameters (`[id]`); none unless said. */
  params?: z.ZodType<P>;
  /** The group's reply to input that fails its schema, when not the format's own (aliases: 400 NOT_FOUND). */
  badInput?: (detail: string) => ApiError;
  /** false: the handler gets no database (health answers 503 itself when it is down). */
  db?: false;
  /** The largest body it takes, in bytes (TRIAD_MAX_BODY_BYTES unless said). */
  maxBody?: () => number;
  /** Its OpenAPI entry. */
  doc: RouteDoc;
};
/** A definition whatever its types, as the route table and the OpenAPI document read it. */
export type AnyDefinition = RouteDefinition<Auth, unknown, unknown, unknown>;

export type RouteContext<A extends Auth, Q, B, P> = {
  request: RequestView;
  db: Db;
  params: P;
  query: Q;
  body: B;
  /** The body exactly as the client sent it (JSON text), for a handler that passes it on unchanged. */
  bodyText: string | undefined;
  /** The client's address (per-address limits, failed attempts). */
  address: string;
} & Principals[A];

/** The door for Node's request and response; `params` are the path's (`[id]`), as the route table matched them. */
export type NodeRoute = (
  req: IncomingMessage,
  res: ServerResponse,
  baseHeaders: [string, string][],
  params?: Record<string, string>,
) => Promise<void>;
/** Where a route keeps its door for Node's request and response. */
export const NODE_ROUTE = Symbol('triad.nodeRoute');
export type WebRoute<P> = ((request: Request, context?: { params: Promise<P> }) => Promise<Response>) & {
  [NODE_ROUTE]: NodeRoute;
  /** Its definition (the route table and the OpenAPI document read it). */
  definition: AnyDefinition;
};

const FORMATS: Record<Format, WireFormat> = { link: linkFormat, chat: chatFormat, anthropic: anthropicFormat };

export function route<A extends Auth, Q = undefined, B = undefined, P = Record<string, never>>(
  definition: RouteDefinition<A, Q, B, P>,
  handler: (ctx: RouteContext<A, Q, B, P>) => Promise<Reply>,
): WebRoute<P> {
  const format = FORMATS[definition.format ?? 'link'];
  const badInput = definition.badInput ?? ((detail: string, param?: string) => format.badInput(detail, param));

  async function answer(request: RequestView, rawParams: unknown): Promise<Reply> {
    const headers: Record<string, string> = {};
    try {
      // Worked out only when something needs it (not on the hot path of a cached API key).
      let known: string | undefined;
      const address = () => (known ??= clientAddress(request));
      const caller = callerOf(request, format, address, headers);
      const principal = await authenticate(definition, caller);
      notePrincipal(principalOf(principal));
      const db = definition.db === false ? (undefined as unknown as Db) : await getDb();
      const params = definition.params ? parseWith(definition.params, rawParams) : ({} as P);
      // A console session names its organization's partner by id (`partner`) instead of by its secret.
      const byIdOf = (raw: unknown) => (definition.auth === 'partner' ? partnerNamedById(principal as Actor, raw) : null);
      // The URL is parsed only for a route that reads its query (the chat route does not).
      const rawQuery = definition.query || definition.auth === 'partner' ? queryObject(request.url) : undefined;
      let byId = byIdOf(rawQuery);
      const query = definition.query ? parseWith(definition.query, rawQuery) : (undefined as Q);
      const raw = definition.body ? await request.json() : undefined;
      byId ??= byIdOf(raw?.value);
      const body = definition.body ? parseWith(definition.body, raw!.value) : (undefined as B);
      const extra =
        definition.auth === 'partner'
          ? { partner: await partnerOf(db, caller, principal as Principals['partner'], byId, query, body) }
          : {};
      const ctx = Object.assign(new Context(request, db, params, query, body, raw?.text, address), principal, extra);
      const reply = await handler(ctx as unknown as RouteContext<A, Q, B, P>);
      return { ...reply, headers: { 'Cache-Control': 'no-store', ...headers, ...reply.headers } };
    } catch (e) {
      return errorReply(format, toApiError(e, format, badInput, request), headers);
    }
  }

  const web = async (request: Request, context?: { params: Promise<P> }): Promise<Response> => {
    const view = new WebRequestView(request, definition.maxBody?.());
    const reply = await answer(view, (await context?.params) ?? {});
    try {
      return toResponse(reply);
    } catch (e) {
      return toResponse(lastResort(e, view.path, format));
    }
  };

  const node: NodeRoute = async (req, res, baseHeaders, params = {}) => {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort(new DOMException('The client closed the connection', 'AbortError'));
    });
    const view = new NodeRequestView(req, gone.signal, definition.maxBody?.());
    const reply = await answer(view, params);
    try {
      await sendNodeReply(res, reply, baseHeaders, gone.signal);
    } catch (e) {
      if (res.headersSent) res.destroy();
      else await sendNodeReply(res, lastResort(e, view.path, format), baseHeaders, gone.signal);
    }
  };

  return Object.assign(web, { [NODE_ROUTE]: node, definition: definition as AnyDefinition });
}

/** Who a principal is, for the request context: an API key and its organization, or an organization. */
function principalOf(p: object): RequestContext['principal'] {
  if ('apiKey' in p) return { orgId: (p as Principals['apiKey']).apiKey.orgId, apiKeyId: (p as Principals['apiKey']).apiKey.id };
  if ('org' in p) return { orgId: (p as Principals['orgToken']).org.id };
  return undefined;
}

/**
 * What a handler gets beside its principal (RouteContext). A class, so that `address`, worked out only
 * when read, is an accessor of the prototype (see ./request-view.ts for why not a literal's getter);
 * a principal that knows the address already (aliasAccess) sets it.
 */
class Context {
  private known: string | undefined;
  constructor(
    readonly request: RequestView,
    readonly db: Db,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly bodyText: string | undefined,
    private readonly addressOf: () => string,
  ) {}
  get address(): string {
    return this.known ?? this.addressOf(); // (addressOf keeps what it worked out)
  }
  set address(value: string) {
    this.known = value;
  }
}

function toApiError(
  e: unknown,
  format: WireFormat,
  badInput: (detail: string, param?: string) => ApiError,
  request: RequestView,
): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof BadInputError) return badInput(e.detail, e.param);
  if (e instanceof MalformedJsonError) return badInput(e.message);
  if (e instanceof BodyTooLargeError) return format.bodyTooLarge(e.limit);
  if (isDatabaseDown(e)) {
    log.warn('database unreachable', { method: request.method, path: request.path, error: (e as Error)?.message });
    return format.unavailable();
  }
  // A client that hung up (say, half-way through its body) reads no reply: nothing went wrong here.
  if (request.signal.aborted) {
    log.debug('client went away', { method: request.method, path: request.path });
    return badInput('the client went away');
  }
  log.error('unhandled error', { method: request.method, path: request.path, error: (e as Error)?.message });
  return format.internal();
}

/** A reply that could not be written (say, a body JSON cannot hold) becomes the format's 500, through either door. */
function lastResort(e: unknown, path: string, format: WireFormat): Reply {
  log.error('reply failed', { path, error: (e as Error)?.message });
  return errorReply(format, format.internal());
}

/** An error as its format writes it; never stored by a cache. */
function errorReply(format: WireFormat, error: ApiError, headers: Record<string, string> = {}): Reply {
  return { status: error.status, headers: { 'Cache-Control': 'no-store', ...headers, ...error.headers }, json: format.body(error) };
}

/** The schema of a reply that wraps its object in `data` (`{data: …}`), for a route's `doc`. */
export const dataReply = (schema: z.ZodType) => z.object({ data: schema });

/** A JSON reply (200 unless said). */
export const json = (data: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({ status, headers, json: data });
