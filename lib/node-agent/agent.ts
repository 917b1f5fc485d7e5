import http from 'node:http';
import https from 'node:https';
import WebSocket from 'ws';
import { Channel } from '@/lib/tunnel/channel';
import type { NativeEndpoint } from '@/lib/chat/capabilities';
import { CLOSE, type Frame, modelName, parseFrame, TUNNEL_PATH, type TunnelPath, VERSION } from '@/lib/tunnel/protocol';
import type { AgentTracing, RequestSpan } from './tracing';

/*
 * The node agent (design §14): beside a partner's model server (Ollama, vLLM, llama.cpp: anything
 * OpenAI-compatible), it dials out to Triad, keeps one WebSocket open, announces the model server's
 * models and serves the requests Triad sends by calling the model server and streaming the reply
 * back (lib/tunnel/channel.ts: flow control both ways). It reconnects with exponential backoff and
 * jitter, trying each server URL in turn, and on drain() finishes what is in flight and takes no more.
 * Bundled with its CLI (./main.ts) into one file, served by Triad at /downloads/triad-node.mjs.
 */
export const AGENT_VERSION = `triad-node/${VERSION}`;
/** Characters of a request body Triad may send before the agent grants more. */
const WINDOW = 256 * 1024;
const MODELS_EVERY_MS = 30_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const UPSTREAM_CHECK_MS = 5000;

export type AgentOptions = {
  servers: string[];
  node: string;
  name?: string;
  upstream: string;
  /** Only these of the model server's models (all when absent). */
  models?: string[];
  /** The APIs the model server speaks natively beyond chat completions (passed through to it). */
  endpoints?: NativeEndpoint[];
  maxConcurrency: number;
  secret: string;
  /** Where the agent says what happens: one line each. */
  say: (line: string) => void;
  /** Its own spans, when it exports traces (./tracing.ts). */
  tracing?: AgentTracing | null;
};

export type AgentState = {
  connected: string | null;
  provider: string | null;
  models: string[];
  inFlight: number;
  served: number;
  tokens: number;
};

/** Why the agent stopped for good (a refused secret, another agent for the node). */
export class AgentStopped extends Error {
  override name = 'AgentStopped';
}

const wsUrl = (server: string) => `${server.replace(/^http/, 'ws').replace(/\/+$/, '')}${TUNNEL_PATH}`;
const errorCode = (e: unknown) => {
  const err = e as Error & { code?: string; cause?: { code?: string; message?: string } };
  return err.cause?.code ?? err.code ?? err.cause?.message ?? err.message;
};

/**
 * A request to the model server, answered with its reply's head (the body still to read). node:http, not
 * fetch: the agent also runs inside Triad's server (the demo's nodes, lib/admin/demo-agents.ts), where
 * nothing else loads Node's own copy of undici that fetch is made of (17 MB resident once compiled).
 */
function toUpstream(
  url: string,
  options: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; signal: AbortSignal },
) {
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const headers = { ...options.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    const req = (url.startsWith('https:') ? https : http).request(
      url,
      { method: options.method, headers, signal: options.signal },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A reply's body, whole. */
async function readAll(res: http.IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of res) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** The model server's model ids (GET {upstream}/models), filtered by `only`; throws with a one-line reason. */
export async function upstreamModels(upstream: string, only?: string[]): Promise<string[]> {
  const signal = AbortSignal.timeout(UPSTREAM_CHECK_MS);
  let status: number;
  let body: { data?: { id?: unknown }[] } | null;
  try {
    const res = await toUpstream(`${upstream}/models`, { method: 'GET', headers: { accept: 'application/json' }, signal });
    status = res.statusCode ?? 0;
    const text = await readAll(res);
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = null;
    }
  } catch (e) {
    if (signal.aborted) throw new Error(`the model server at ${upstream} did not answer GET /models within ${UPSTREAM_CHECK_MS / 1000} s`);
    throw new Error(`the model server at ${upstream} cannot be reached (${errorCode(e)})`);
  }
  if (status < 200 || status > 299 || !Array.isArray(body?.data))
    throw new Error(`the model server at ${upstream} did not list its models (GET /models answered ${status})`);
  // (Ids Triad would refuse in the hello — over 200 characters, a NUL, half a surrogate pair — left out.)
  const ids = body.data.map((m) => m?.id).filter((id): id is string => modelName.safeParse(id).success);
  return [...new Set(only ? ids.filter((id) => only.includes(id)) : ids)].slice(0, 500);
}

export function startAgent(opts: AgentOptions) {
  const state: AgentState = { connected: null, provider: null, models: [], inFlight: 0, served: 0, tokens: 0 };
  let ws: WebSocket | null = null;
  let draining = false;
  let stopped: ((e?: Error) => void) | null = null;
  const done = new Promise<void>((resolve, reject) => (stopped = (e) => (e ? reject(e) : resolve())));
  const requests = new Map<number, { channel: Channel; abort: AbortController }>();
  let attempt = 0;
  let serverIndex = 0;
  let modelTimer: NodeJS.Timeout | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;

  const stop = (e?: Error) => {
    if (!stopped) return;
    const s = stopped;
    stopped = null;
    if (modelTimer) clearInterval(modelTimer);
    if (reconnectTimer) clearTimeout(reconnectTimer);
    for (const r of requests.values()) r.abort.abort();
    ws?.close(1000, 'the agent stopped');
    state.connected = null;
    s(e);
  };

  const send = (f: Frame) => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(f));
  };

  function connect() {
    if (!stopped) return;
    const server = opts.servers[serverIndex % opts.servers.length]!;
    const socket = new WebSocket(wsUrl(server), {
      headers: { authorization: `Bearer ${opts.secret}` },
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    ws = socket;
    let welcomed = false;
    let openedAt = 0;
    /** Triad answered the upgrade with a refusal (a wrong secret, say): said by that, not as "cannot reach". */
    let refused = false;
    socket.on('unexpected-response', (_req, res) => {
      refused = true;
      const status = res.statusCode ?? 0;
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        let message = text.slice(0, 200);
        try {
          const { error } = JSON.parse(text) as { error?: { message?: string; detail?: string } };
          if (error?.message) message = error.detail ? `${error.message}: ${error.detail}` : error.message;
        } catch {}
        if (status === 401 || status === 403) return stop(new AgentStopped(`${server} refused the partner secret: ${message}`));
        opts.say(`${server} refused the tunnel (${status}: ${message}); trying again`);
        retry();
      });
    });
    socket.on('open', () => {
      openedAt = Date.now();
      send({
        t: 'hello',
        node: opts.node,
        ...(opts.name ? { name: opts.name } : {}),
        models: state.models,
        max_concurrency: opts.maxConcurrency,
        window: WINDOW,
        agent: AGENT_VERSION,
        version: VERSION,
        ...(opts.endpoints?.length ? { endpoints: opts.endpoints } : {}),
      });
    });
    socket.on('message', (data, binary) => {
      const f = binary ? 'frames are text' : parseFrame(data.toString());
      if (typeof f === 'string') return socket.close(CLOSE.protocol, f);
      if (!welcomed) {
        if (f.t !== 'welcome') return socket.close(CLOSE.protocol, 'expected a welcome');
        welcomed = true;
        attempt = 0;
        state.connected = server;
        state.provider = f.provider;
        peerWindow = f.window;
        opts.say(
          `connected to ${server} as provider ${f.provider}, serving ${state.models.length} model(s): ${state.models.join(', ') || '(none)'}`,
        );
        if (draining) send({ t: 'drain' });
        return;
      }
      try {
        onFrame(f);
      } catch (e) {
        socket.close(CLOSE.protocol, (e as Error).message.slice(0, 120));
      }
    });
    socket.on('error', (e) => {
      if (!welcomed && !openedAt && !refused) opts.say(`cannot reach Triad at ${server} (${errorCode(e)})`);
    });
    socket.on('close', (code, reason) => {
      const why = reason.toString();
      if (state.connected) opts.say(`disconnected from ${server} (${code}${why ? `: ${why}` : ''})`);
      // Closed after the upgrade, before the welcome: Triad refused the hello (or is stopping, or has too many tunnels).
      else if (openedAt && !welcomed && code !== 1000 && code !== CLOSE.protocol && stopped)
        opts.say(`${server} closed the tunnel before welcoming it (${code}${why ? `: ${why}` : ''})`);
      state.connected = null;
      const gone = new Error('the tunnel closed');
      for (const r of requests.values()) {
        r.abort.abort();
        r.channel.fail(gone);
      }
      requests.clear();
      if (ws !== socket || !stopped) return;
      if (code === CLOSE.unauthorized)
        return stop(
          new AgentStopped(`${server} closed the tunnel: ${why || 'the partner secret was rotated'}; start the agent with the new secret`),
        );
      if (code === CLOSE.replaced)
        return stop(new AgentStopped(`${server} closed the tunnel: ${why || 'another agent connected as this node'}`));
      // A hello refused as not the protocol is refused again: say so once, and stop (an agent older or newer than Triad, say).
      if (code === CLOSE.protocol && !welcomed)
        return stop(
          new AgentStopped(`${server} refused this agent's hello${why ? ` (${why})` : ''}: check --node, --name and the agent's version`),
        );
      if (draining) return stop();
      if (openedAt && Date.now() - openedAt > 10_000) attempt = 0; // it had worked: start the backoff again
      retry();
    });
  }

  function retry() {
    if (!stopped || reconnectTimer) return;
    serverIndex++;
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** attempt++);
    const wait = Math.round(ceiling / 2 + Math.random() * (ceiling / 2)); // jitter: half to all of the ceiling
    reconnectTimer = setTimeout(() => {
      reconnectTimer = null;
      connect();
    }, wait);
  }

  let peerWindow = WINDOW;
  function onFrame(f: Frame) {
    switch (f.t) {
      case 'open': {
        if (requests.has(f.id)) throw new Error(`request ${f.id} opened twice`);
        const channel = new Channel(f.id, send, peerWindow, WINDOW);
        const abort = new AbortController();
        requests.set(f.id, { channel, abort });
        void serveRequest(f.id, channel, abort, f.path ?? '/chat/completions', f.headers ?? {});
        return;
      }
      case 'data':
      case 'end':
      case 'win':
        requests.get(f.id)?.channel.receive(f);
        return;
      case 'cancel': {
        const r = requests.get(f.id);
        r?.abort.abort();
        r?.channel.close();
        return;
      }
      default:
        throw new Error(`a ${f.t} frame from Triad`);
    }
  }

  /** One request: a POST of `path` (one the protocol allows) to the model server, its reply streamed back. */
  async function serveRequest(id: number, channel: Channel, abort: AbortController, path: TunnelPath, headers: Record<string, string>) {
    state.inFlight++;
    let span: RequestSpan | undefined;
    let status: number | null = null;
    let failure: string | undefined;
    try {
      const body = await channel.text();
      span = opts.tracing?.request(path, opts.upstream, headers);
      let res: http.IncomingMessage;
      try {
        res = await toUpstream(`${opts.upstream}${path}`, {
          method: 'POST',
          headers: { ...(span?.headers ?? headers), 'content-type': 'application/json' },
          body,
          signal: abort.signal,
        });
      } catch (e) {
        failure = abort.signal.aborted ? 'cancelled' : 'unreachable';
        if (!abort.signal.aborted) send({ t: 'fail', id, message: `the model server cannot be reached (${errorCode(e)})` });
        return;
      }
      status = res.statusCode ?? 502;
      const retryAfter = Number(res.headers['retry-after']);
      send({ t: 'head', id, status, ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retry_after: retryAfter } : {}) });
      const decoder = new TextDecoder();
      let tail = '';
      try {
        for await (const part of res as AsyncIterable<Buffer>) {
          const text = decoder.decode(part, { stream: true });
          tail = (tail + text).slice(-4096);
          if (!(await channel.write(text))) return abort.abort();
        }
      } catch (e) {
        failure = abort.signal.aborted ? 'cancelled' : 'broke_off';
        if (!abort.signal.aborted) send({ t: 'fail', id, message: `the model server's reply broke off (${errorCode(e)})` });
        return;
      }
      channel.end();
      if (status >= 200 && status <= 299) {
        state.served++;
        const usage = [...tail.matchAll(/"total_tokens"\s*:\s*(\d+)/g)].pop();
        if (usage) state.tokens += Number(usage[1]);
      }
    } catch {
      // the tunnel closed or the request was cancelled: nothing more to send
    } finally {
      span?.end(status, failure);
      requests.delete(id);
      state.inFlight--;
      if (draining && state.inFlight === 0) stop();
    }
  }

  async function refreshModels() {
    try {
      const models = await upstreamModels(opts.upstream, opts.models);
      if (models.join('\n') === state.models.join('\n')) return;
      state.models = models;
      opts.say(`models now: ${models.join(', ') || '(none)'}`);
      send({ t: 'models', models });
    } catch (e) {
      opts.say((e as Error).message);
    }
  }

  return {
    state,
    done,
    /** Checks the model server, then connects (and keeps connecting). */
    async start() {
      state.models = await upstreamModels(opts.upstream, opts.models);
      if (!stopped) return; // stopped meanwhile
      modelTimer = setInterval(() => void refreshModels(), MODELS_EVERY_MS);
      modelTimer.unref();
      connect();
    },
    /** Finishes what is in flight, takes nothing new, then stops (at once when idle). */
    drain() {
      if (draining) return stop();
      draining = true;
      send({ t: 'drain' });
      if (state.inFlight === 0) stop();
    },
    stop,
  };
}
