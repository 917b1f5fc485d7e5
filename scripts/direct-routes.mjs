// Direct dispatch of the chat completion route, for `npm start`.
//
// Next's generic request pipeline (route matching, redirects/rewrites/headers of next.config,
// adapting Node's request to a NextRequest, the app-route runtime, piping the Response back) costs
// about 2 ms of CPU per request on a small machine: more than everything the chat proxy itself does,
// and it is paid on every call of the hottest, most latency-sensitive endpoint. So the custom server
// hands `POST /api/v1/chat/completions` straight to the route handler that the compiled App Router
// route module exports — the very function Next would call, so there is one implementation — and
// sends the same headers next.config adds. Every other request, and every other method on that
// path, goes through Next as before.
//
// It stays off (and everything goes through Next) when Next would do more than add headers on that
// path: a middleware/proxy, or a redirect or rewrite that matches it. TRIAD_DIRECT_ROUTES=0 turns it off.
import { once } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';

/** The routes served directly: method, path, and the body of a last-resort 500 in the route's wire format. */
const ROUTES = [
  {
    method: 'POST',
    path: '/api/v1/chat/completions',
    internalError: { error: { message: 'The server had an error while processing the request.', type: 'api_error', code: 'internal_error' } },
  },
];

// A body whose Content-Length is at most this is read whole before the handler runs (the handler
// still applies TRIAD_MAX_BODY_BYTES to it); any other body is handed over as a stream.
const READ_WHOLE_BYTES = 1024 * 1024;

// Where a request carries the body read here (see lib/http/body.ts).
const HELD_BODY = Symbol.for('triad.heldBody');
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/**
 * Loads the handlers of ROUTES from the build in `<root>/.next`. Resolves with a dispatcher, or with
 * one with no routes and the `reason` when direct dispatch is not possible or not safe with this build.
 */
export async function loadDirectRoutes(root, { onError = () => {} } = {}) {
  const off = (reason) => ({ routes: [], reason, match: () => undefined, serve: undefined });
  const server = path.join(root, '.next/server');
  const manifest = readJson(path.join(root, '.next/routes-manifest.json'));
  const middleware = readJson(path.join(server, 'middleware-manifest.json'));
  const functions = fs.existsSync(path.join(server, 'functions-config-manifest.json')) ? readJson(path.join(server, 'functions-config-manifest.json')).functions : {};
  if (Object.keys(middleware.middleware ?? {}).length || middleware.sortedMiddleware?.length || functions?.['/_middleware']) {
    return off('a middleware/proxy runs on every request');
  }
  const appPaths = readJson(path.join(server, 'app-paths-manifest.json'));
  const require = createRequire(import.meta.url);
  const table = new Map();
  for (const route of ROUTES) {
    const matches = (rule) => new RegExp(rule.regex).test(route.path);
    const rewrites = Array.isArray(manifest.rewrites) ? manifest.rewrites : Object.values(manifest.rewrites ?? {}).flat();
    if ([...(manifest.redirects ?? []), ...rewrites].some(matches)) return off(`a redirect or rewrite matches ${route.path}`);
    const headerRules = (manifest.headers ?? []).filter(matches);
    if (headerRules.some((rule) => rule.has || rule.missing)) return off(`conditional headers apply to ${route.path}`);
    const file = appPaths[`${route.path}/route`];
    if (!file) return off(`no route module for ${route.path}`);
    const { routeModule } = require(path.join(server, file));
    await routeModule.ensureUserland();
    const handler = routeModule.userland[route.method];
    if (typeof handler !== 'function') return off(`${route.path} exports no ${route.method} handler`);
    table.set(`${route.method} ${route.path}`, { handler, route, onError, headers: headerRules.flatMap((rule) => rule.headers.map((h) => [h.key, h.value])) });
  }
  return {
    routes: [...table.keys()],
    reason: null,
    /** The direct route for this request, if it has one. */
    match(req) {
      if (req.method !== 'POST') return undefined;
      const q = req.url.indexOf('?');
      return table.get(`${req.method} ${q < 0 ? req.url : req.url.slice(0, q)}`);
    },
    serve,
  };
}

/** Serves one request with its route handler: a Web Request in, the handler's Response out, streamed. */
async function serve({ handler, route, onError, headers: configHeaders }, req, res) {
  // The handler's `request.signal` fires when the client goes away before the reply is complete.
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort(new DOMException('The client closed the connection', 'AbortError'));
  });
  let response;
  try {
    response = await handler(await toWebRequest(req, gone.signal));
  } catch (e) {
    // Handlers answer their own errors; this is the last resort, without details.
    if (!gone.signal.aborted) onError(e);
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(500, { ...Object.fromEntries(configHeaders), 'content-type': 'application/json' });
      res.end(JSON.stringify(route.internalError));
    }
    return;
  }
  res.statusCode = response.status;
  for (const [k, v] of configHeaders) res.setHeader(k, v);
  for (const [k, v] of response.headers) if (k !== 'set-cookie') res.setHeader(k, v);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader('set-cookie', cookies);
  if (!response.body) return void res.end();
  await pipe(response.body, res, gone.signal);
}

async function toWebRequest(req, signal) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const one of v) headers.append(k, one);
    else if (v !== undefined) headers.set(k, v);
  }
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (!(declared <= READ_WHOLE_BYTES)) {
    return new Request(requestUrl(req), { method: req.method, headers, body: Readable.toWeb(req), signal, duplex: 'half' });
  }
  // A small body is read here and handed over as it is (lib/http/body.ts takes it from HELD_BODY):
  // cheaper than wrapping it in a stream only for the handler to read it back.
  const request = new Request(requestUrl(req), { method: req.method, headers, signal });
  request[HELD_BODY] = await readWhole(req);
  return request;
}

function readWhole(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client went away while sending the body'));
    });
  });
}

function requestUrl(req) {
  try {
    return new URL(req.url, `http://${req.headers.host || 'localhost'}`).href;
  } catch {
    return new URL(req.url, 'http://localhost').href;
  }
}

/**
 * Writes a Web stream to the Node response as it comes: no buffering beyond the current tick (chunks
 * that are ready together leave in one packet), backpressure honoured, and the stream cancelled when
 * the client goes away (which aborts whatever produces it).
 */
async function pipe(body, res, gone) {
  const reader = body.getReader();
  const cancel = () => void reader.cancel(gone.reason).catch(() => {});
  gone.addEventListener('abort', cancel, { once: true });
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork);
      }
      if (!res.write(value)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    }
    res.end();
  } catch {
    // The producer failed after the head was sent: cut the connection rather than end it cleanly,
    // so the client cannot mistake a truncated reply for a whole one.
    res.destroy();
  } finally {
    gone.removeEventListener('abort', cancel);
  }
}
