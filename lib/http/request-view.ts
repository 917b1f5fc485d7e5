import type { IncomingMessage } from 'node:http';
import { type JsonBody, readJsonBody, readNodeJsonBody } from './body';

/** What a handler reads of its request, whichever door it came through (lib/http/route.ts). */
export type RequestView = {
  method: string;
  /** The full URL (query included). */
  url: string;
  path: string;
  headers: { get(name: string): string | null };
  /** The JSON body, within the route's limit (TRIAD_MAX_BODY_BYTES unless said): its value, and its text as sent. */
  json(): Promise<JsonBody>;
  /** Fires when the client goes away before the reply is complete. */
  signal: AbortSignal;
};

/** The client's platform as its `sec-ch-ua-platform` header names it (quotes off, at most 64 characters), or null. */
export const clientPlatform = (request: Pick<RequestView, 'headers'>): string | null =>
  request.headers.get('sec-ch-ua-platform')?.replace(/^"|"$/g, '').slice(0, 64) || null;

/*
 * The two doors' views are classes, their lazy fields getters of the prototype. Not object literals
 * with getters: V8 turns each such literal into a dictionary-mode object with an accessor of its own,
 * and what that accessor closes over survived young-generation collections until the next full one
 * (measured on a bare node:http server: 900 B promoted a request with a literal whose getter reads
 * the request, 4 B with a plain function property). Here that was the whole request — its socket
 * objects, body, reply, the completion —, copied to the old generation at every scavenge: 8 KB a
 * chat completion, scavenges of 5–8 ms instead of under one, right at the p99 of `npm run bench:chat`
 * (docs/benchmarks.md). `npm run lint` refuses accessors in object literals on the server.
 */
/** A request through Next's router (a Web Request). */
export class WebRequestView implements RequestView {
  constructor(
    private readonly request: Request,
    private readonly maxBody: number | undefined,
  ) {}
  get method() {
    return this.request.method;
  }
  get url() {
    return this.request.url;
  }
  get path() {
    return new URL(this.request.url).pathname;
  }
  get headers() {
    return this.request.headers;
  }
  get signal() {
    return this.request.signal;
  }
  json() {
    return readJsonBody(this.request, this.maxBody);
  }
}

/** A request served by the server's direct dispatch (Node's IncomingMessage); `signal` fires when its client goes away. */
export class NodeRequestView implements RequestView {
  readonly method: string;
  readonly headers: { get(name: string): string | null };
  constructor(
    private readonly req: IncomingMessage,
    readonly signal: AbortSignal,
    private readonly maxBody: number | undefined,
  ) {
    this.method = req.method ?? 'GET';
    this.headers = new NodeHeaders(req);
  }
  get url() {
    return `http://${this.req.headers.host ?? 'localhost'}${this.req.url ?? '/'}`;
  }
  get path() {
    return (this.req.url ?? '/').split('?')[0]!;
  }
  json() {
    return readNodeJsonBody(this.req, this.maxBody);
  }
}

/** Node's request headers, read as a Web Headers object reads them (repeated ones joined). */
class NodeHeaders {
  constructor(private readonly req: IncomingMessage) {}
  get(name: string): string | null {
    const v = this.req.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
}
