import Agent from 'undici/lib/dispatcher/agent.js';
import { ApiError } from '@/lib/core/errors';
import { traceHeaders } from '@/lib/observability/tracing';
import { invalidRequest, modelNotFound, upstreamBusy, upstreamFailed, upstreamTimeout, upstreamUnreachable } from '@/lib/errors/chat';
import type { ModelCall, ModelClient, Wire, WireReply } from './client';

/*
 * The HTTP client of a provider: any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, OpenAI).
 * Its models are found by the prober (./prober.ts). A streamed reply is requested as a stream (with
 * usage) and passed on chunk by chunk; a whole reply is requested whole. The time limit applies
 * until the first byte and between chunks.
 */
export type HttpClientOptions = { baseUrl: string; apiKey?: string; timeoutMs: number };

/**
 * Kept-alive connections to model servers (a new TCP connection per completion would cost more than
 * Triad itself), with undici's HTTP/1.1 client: about 60 µs less CPU a request than node:http's on this
 * project's machine (its ClientRequest, agent and outgoing message; docs/benchmarks.md). Its own time
 * limits are off: the watchdog below keeps the provider's. An idle connection is closed after 4 s
 * (undici's default, shorter than servers' own, so a request never goes out on one the server closed).
 * Only the agent is loaded, not undici's index (./undici-parts.d.ts), and a reply is read from its
 * dispatcher's handler calls (`Reply` below), not through its `request()` and response stream.
 */
const modelServers = new Agent({ connections: 256, headersTimeout: 0, bodyTimeout: 0 });

/**
 * Where a path of a model server is POSTed: its origin and path, and the Basic authorization of
 * credentials in its URL (`http://user:pass@host`), if any.
 */
type Destination = { origin: string; path: string; basic: string | null };

const destinationOf = (url: URL): Destination => {
  const auth = url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : '';
  return { origin: url.origin, path: `${url.pathname}${url.search}`, basic: auth ? `Basic ${Buffer.from(auth).toString('base64')}` : null };
};

/**
 * Sends a request to a model server; resolves with the reply once its head is in (rejects when the
 * server cannot be reached, or `signal` ends it first). The headers go as one flat list, with the Basic
 * authorization of the URL's credentials unless the call has its own.
 */
function sendTo(
  to: Destination,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  signal: AbortSignal,
  body?: string,
): Promise<Exchange> {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name]!);
  if (to.basic && !('authorization' in headers)) list.push('authorization', to.basic);
  return new Promise((resolve, reject) => {
    modelServers.dispatch({ origin: to.origin, path: to.path, method, headers: list, body }, new Reply(signal, resolve, reject));
  });
}

/**
 * A model server's reply as undici's parser hands it over (the dispatcher's handler: connected, head,
 * each piece of the body, end or error). The body is kept as it comes until it is read, whole
 * (`text()`) or as the `data:` payloads of a stream (`events()`); no stream object, no copy of the
 * head's headers but Retry-After. (undici's `request()` makes a Readable a reply and an object of its
 * headers: about 10 µs of CPU a completion on this project's VM, docs/benchmarks.md.) `signal` ends the
 * exchange at any point; a reader that leaves early (at `[DONE]`) lets the rest come and go unread, so
 * the kept-alive connection goes back to the pool.
 */
class Reply implements Exchange {
  status = 0;
  retryAfter: string | undefined = undefined;
  private abort: ((reason: Error) => void) | null = null;
  private head: { resolve: (r: Exchange) => void; reject: (e: Error) => void } | null;
  private parts: Buffer[] = [];
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly signal: AbortSignal,
    resolve: (r: Exchange) => void,
    reject: (e: Error) => void,
  ) {
    this.head = { resolve, reject };
    if (signal.aborted) this.failure = signal.reason as Error;
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private readonly onAbort = () => {
    const reason = (this.signal.reason as Error) ?? new Error('aborted');
    if (this.abort) this.abort(reason);
    else this.failure ??= reason; // not connected yet: ended in onConnect
  };

  /** Wakes a reader waiting for more. */
  private notify() {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /** The exchange is over (ended or failed): the signal no longer concerns it. */
  private over() {
    this.signal.removeEventListener('abort', this.onAbort);
    this.notify();
  }

  onConnect(abort: (reason: Error) => void): void {
    if (this.failure) abort(this.failure);
    else this.abort = abort;
  }

  onHeaders(status: number, raw: Buffer[]): boolean {
    if (status < 200) return true; // 1xx: informational
    this.status = status;
    if (status === 429)
      for (let i = 0; i < raw.length; i += 2)
        if (raw[i]!.toString('latin1').toLowerCase() === 'retry-after') this.retryAfter = raw[i + 1]!.toString('latin1');
    const head = this.head!;
    this.head = null;
    head.resolve(this);
    return true;
  }

  onData(part: Buffer): boolean {
    this.parts.push(part);
    this.notify();
    return true;
  }

  onComplete(): void {
    this.ended = true;
    this.over();
  }

  onError(e: Error): void {
    this.failure ??= e;
    const head = this.head;
    this.head = null;
    head?.reject(this.failure);
    this.over();
  }

  /** Resolves at the next piece of the body, its end or its failure. */
  private next(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  async text(): Promise<string> {
    while (!this.ended && !this.failure) await this.next();
    if (this.failure) throw this.failure;
    const parts = this.parts;
    this.parts = [];
    return (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8');
  }

  async *events(): AsyncGenerator<string[]> {
    const decoder = new TextDecoder();
    const split = sseSplitter();
    let ready: string[] = [];
    for (;;) {
      for (const part of this.parts) split(decoder.decode(part, { stream: true }), ready);
      this.parts.length = 0;
      if (ready.length) {
        // What came while the reader held them (the end among it) is looked at again before the end is believed.
        yield ready;
        ready = [];
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      await this.next();
    }
  }
}

/**
 * GETs a path of a model server (the prober's model list): the reply's status and body, or a
 * TimeoutError after `timeoutMs`. Its signal is an AbortController's, as a completion's is: a signal of
 * another kind (AbortSignal.timeout's) through the same code made V8 throw away the completions'
 * optimized code at every probe.
 */
export async function getText(url: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; text: string }> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException(`no answer in ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  try {
    const res = await sendTo(destinationOf(new URL(url)), 'GET', headers, ctl.signal);
    return { status: res.status, text: await res.text() };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An abort signal that fires when the caller's does, or when `ms` pass without `reset()`: the
 * upstream's time limit until the first byte and between chunks. (Cheaper per request than
 * AbortSignal.any with AbortSignal.timeout.) `stop()` once the exchange is over. `timeout` says
 * what a timeout for it reads ("no reply in 300 ms").
 */
function watchdog(caller: AbortSignal, ms: number, timeout: string) {
  const ctl = new AbortController();
  const onCaller = () => ctl.abort(caller.reason);
  caller.addEventListener('abort', onCaller, { once: true });
  const expire = () => ctl.abort(new DOMException(`no data for ${ms} ms`, 'TimeoutError'));
  const timer = setTimeout(expire, ms);
  return {
    signal: ctl.signal,
    /** What a failed exchange becomes: a ApiError or the caller's abort as it is, the time limit a 504, anything else `otherwise()`. */
    failure(e: unknown, otherwise: () => ApiError): unknown {
      if (e instanceof ApiError || caller.aborted) return e;
      if (ctl.signal.aborted) return upstreamTimeout(timeout); // the time limit ended it, not the caller
      return otherwise();
    },
    reset() {
      timer.refresh(); // the same timer, its time counted again from now (cheaper than a new one each chunk)
    },
    stop() {
      clearTimeout(timer);
      caller.removeEventListener('abort', onCaller);
    },
  };
}

/**
 * A model server's reply as a way there delivers it: its status, and its body whole or as the `data:`
 * payloads of a stream. Over HTTP (below) or a node's tunnel (./tunnel-client.ts).
 */
export type Exchange = {
  status: number;
  /** Its Retry-After, for a 429. */
  retryAfter?: string;
  text(): Promise<string>;
  /** The stream's `data:` payloads, in order, a batch of those that came together at a time (never an empty one). */
  events(): AsyncGenerator<string[]>;
};
/**
 * Sends a request body to a path under the server's base, with the call's own headers (an
 * `anthropic-version`, say); resolves with the reply's head (rejects when the server cannot be reached).
 */
export type Transport = (path: string, body: string, signal: AbortSignal, headers?: Record<string, string>) => Promise<Exchange>;

export function httpModelClient(opts: HttpClientOptions): ModelClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const destinations = new Map<string, Destination>();
  const headers = { 'content-type': 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) };
  return modelClientOver(async (path, body, signal, extra) => {
    let to = destinations.get(path);
    if (!to) destinations.set(path, (to = destinationOf(new URL(`${base}${path}`))));
    // Anthropic's own API takes the key as x-api-key; servers that speak its Messages API otherwise take the bearer.
    const own = path.startsWith('/messages') && opts.apiKey ? { ...headers, 'x-api-key': opts.apiKey } : headers;
    return sendTo(to, 'POST', extra ? { ...extra, ...own } : own, signal, body);
  }, opts.timeoutMs);
}

/**
 * A model server's exchanges over a transport: the time limit until the first byte and between
 * chunks, the server's refusals in our terms, replies checked to be the protocol (a Chat Completions
 * reply for `complete` and `stream`, a JSON object for `post`). The path is the call's.
 */
export function modelClientOver(post: Transport, timeoutMs: number): ModelClient {
  /** Sends the call; resolves with the head of a 2xx reply, else throws the server's refusal in our terms. */
  const send = async (call: ModelCall, dog: ReturnType<typeof watchdog>) => {
    let res: Exchange;
    try {
      // The attempt's span as the model server's parent (design §18), when traces are exported.
      const traced = traceHeaders();
      res = await post(
        call.path,
        call.json ?? JSON.stringify(call.body),
        dog.signal,
        traced ? { ...call.headers, ...traced } : call.headers,
      );
    } catch (e) {
      throw dog.failure(e, () => upstreamUnreachable((e as NodeJS.ErrnoException).code ?? (e as Error).message));
    }
    if (res.status < 200 || res.status >= 300) throw await mapStatus(res, String(call.body.model));
    return res;
  };

  return {
    async post(call: ModelCall): Promise<{ value: Record<string, unknown> }> {
      const dog = watchdog(call.signal, timeoutMs, `no reply in ${timeoutMs} ms`);
      try {
        const res = await send(call, dog);
        try {
          const value: unknown = JSON.parse(await res.text());
          if (!value || typeof value !== 'object') throw new Error('not an object');
          return { value: value as Record<string, unknown> };
        } catch (e) {
          throw dog.failure(e, () => upstreamFailed(res.status, 'the reply was cut off or is not JSON'));
        }
      } finally {
        dog.stop();
      }
    },

    async complete(call: ModelCall): Promise<Wire> {
      const dog = watchdog(call.signal, timeoutMs, `no reply in ${timeoutMs} ms`);
      try {
        const res = await send(call, dog);
        let text: string;
        let value: WireReply;
        try {
          text = await res.text();
          value = JSON.parse(text);
        } catch (e) {
          throw dog.failure(e, () => upstreamFailed(res.status, 'the reply was cut off or is not JSON'));
        }
        if (!value || typeof value !== 'object' || !Array.isArray(value.choices))
          throw upstreamFailed(res.status, 'the reply is not a chat.completion');
        return { value, text };
      } finally {
        dog.stop();
      }
    },

    async *relay(call: ModelCall): AsyncGenerator<string[]> {
      const dog = watchdog(call.signal, timeoutMs, `no data for ${timeoutMs} ms`);
      try {
        const res = await send(call, dog);
        for await (const batch of res.events()) {
          dog.reset();
          const end = batch.indexOf('[DONE]');
          if (end < 0) yield batch;
          else {
            if (end > 0) yield batch.slice(0, end);
            return;
          }
        }
      } catch (e) {
        throw dog.failure(e, () => upstreamUnreachable((e as Error).message));
      } finally {
        dog.stop();
      }
    },

    async *stream(call: ModelCall): AsyncGenerator<Wire[]> {
      const dog = watchdog(call.signal, timeoutMs, `no data for ${timeoutMs} ms`);
      try {
        const res = await send(call, dog);
        for await (const batch of res.events()) {
          dog.reset();
          // The chunks before a bad line or [DONE] go on first, together.
          const end = batch.indexOf('[DONE]');
          const wires: Wire[] = [];
          for (const text of end < 0 ? batch : batch.slice(0, end)) {
            const wire = chunkOf(text);
            if (wire instanceof ApiError) {
              if (wires.length) yield wires;
              throw wire;
            }
            wires.push(wire);
          }
          if (wires.length) yield wires;
          if (end >= 0) return;
        }
        if (call.signal.aborted) return;
        throw dog.failure(null, () => upstreamFailed(200, 'the stream ended before [DONE]'));
      } catch (e) {
        throw dog.failure(e, () => upstreamUnreachable((e as Error).message));
      } finally {
        dog.stop();
      }
    },
  };
}

/** A stream's `data:` payload as a chunk, or what is wrong with it. */
function chunkOf(text: string): Wire | ApiError {
  let value: WireReply;
  try {
    value = JSON.parse(text);
  } catch {
    return upstreamFailed(200, 'the stream carried a line that is not JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return upstreamFailed(200, 'the stream carried a line that is not a chunk');
  if (value.error) return upstreamFailed(200, value.error.message ?? 'error in stream');
  if (Array.isArray(value.choices)) return { value, text };
  // No choices: a chunk of usage alone (servers write `"choices":[]` there; a client reads `.choices` of
  // every chunk) is given its empty list, and encoded anew; anything else is no chunk.
  if (value.usage && typeof value.usage === 'object' && !('choices' in value)) return { value: { ...value, choices: [] } };
  return upstreamFailed(200, 'the stream carried a line that is not a chunk');
}

async function errorText(res: Exchange): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string };
    return (typeof body.error === 'string' ? body.error : body.error?.message) ?? text.slice(0, 300);
  } catch {
    return text.slice(0, 300) || `status ${res.status}`;
  }
}

/**
 * A model server's refusal, in our own terms: its 400/413/422 are about the request (the client's error,
 * passed on as 400 with its message: never tried elsewhere, never held against the provider's health),
 * 404 an unknown model, 429 busy; the rest is ours (502).
 */
async function mapStatus(res: Exchange, model: string): Promise<ApiError> {
  const { status } = res;
  const message = await errorText(res);
  if (status === 400 || status === 413 || status === 422) return invalidRequest(`The model server refused the request: ${message}`);
  if (status === 404) return modelNotFound(model, message);
  if (status === 429) {
    const retry = Math.min(3600, Math.max(1, Math.ceil(Number(res.retryAfter)) || 1));
    return upstreamBusy(retry);
  }
  return upstreamFailed(status, message);
}

/** Splits Server-Sent Events text, as it arrives in pieces, into its `data:` payloads. */
export function sseSplitter(): (piece: string, ready: string[]) => void {
  let buffer = '';
  return (piece, ready) => {
    buffer += piece;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.charCodeAt(nl - 1) === 13 ? buffer.slice(0, nl - 1) : buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('data:')) ready.push(line.slice(5).trimStart());
    }
  };
}
