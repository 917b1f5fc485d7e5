// Direct dispatch of the chat completion route, for `npm start`.
//
// Next's generic request pipeline (route matching, redirects/rewrites/headers of next.config,
// adapting Node's request to a NextRequest, the app-route runtime, piping the Response back) costs
// about 2 ms of CPU per request on a small machine: more than everything the chat proxy itself does,
// and it is paid on every call of the hottest, most latency-sensitive endpoint. So the custom server
// hands `POST /api/v1/chat/completions` straight to the route handler that the compiled App Router
// route module exports, in its variant for Node's request and response (withApiKey in
// lib/http/chat-route.ts makes both variants around one handler, so there is one implementation;
// this one skips building Web Request and Response objects as well), and sends the same headers
// next.config adds. Every other request, and every other method on that path, goes through Next.
//
// It stays off (and everything goes through Next) when Next would do more than add headers on that
// path: a middleware/proxy, or a redirect or rewrite that matches it. TRIAD_DIRECT_ROUTES=0 turns it off.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The routes served directly. */
const ROUTES = [{ method: 'POST', path: '/api/v1/chat/completions' }];

// Where a route handler made by withApiKey (lib/http/chat-route.ts) keeps its variant for Node's
// request and response: the same handler, without Web Request and Response objects in between.
const NODE_HANDLER = Symbol.for('triad.nodeHandler');
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/**
 * The headers next.config adds to a path (its unconditional `headers()` rules), for replies the
 * server gives itself, without Next: the same security headers as every other reply.
 */
export function configHeaders(root) {
  const rules = (readJson(path.join(root, '.next/routes-manifest.json')).headers ?? []).filter((rule) => !rule.has && !rule.missing);
  const compiled = rules.map((rule) => ({ regex: new RegExp(rule.regex), headers: rule.headers.map((h) => [h.key, h.value]) }));
  return (pathname) => compiled.filter((rule) => rule.regex.test(pathname)).flatMap((rule) => rule.headers);
}

/**
 * Loads the handlers of ROUTES from the build in `<root>/.next`. Resolves with a dispatcher, or with
 * one with no routes and the `reason` when direct dispatch is not possible or not safe with this build.
 */
export async function loadDirectRoutes(root, { onError = () => {} } = {}) {
  const off = (reason) => ({ routes: [], reason, match: () => undefined, serve: undefined });
  const server = path.join(root, '.next/server');
  const manifest = readJson(path.join(root, '.next/routes-manifest.json'));
  const middleware = readJson(path.join(server, 'middleware-manifest.json'));
  const functions = fs.existsSync(path.join(server, 'functions-config-manifest.json'))
    ? readJson(path.join(server, 'functions-config-manifest.json')).functions
    : {};
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
    const handler = routeModule.userland[route.method]?.[NODE_HANDLER];
    if (typeof handler !== 'function') return off(`${route.path} has no ${route.method} handler for Node's request and response`);
    table.set(`${route.method} ${route.path}`, {
      handler,
      onError,
      headers: headerRules.flatMap((rule) => rule.headers.map((h) => [h.key, h.value])),
    });
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

/**
 * Serves one request with the Node variant of its route handler, after the headers next.config adds.
 * The handler answers its own errors, in its route's format; should it fail all the same, the
 * connection is cut, so that the client cannot take what it got for a whole reply.
 */
async function serve({ handler, onError, headers }, req, res) {
  try {
    await handler(req, res, headers);
  } catch (e) {
    onError(e);
    res.destroy();
  }
}
