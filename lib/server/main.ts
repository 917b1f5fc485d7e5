/*
 * Triad's server: `npm start` (after scripts/build-if-needed.mjs) and `npm run dev` (`--dev`: around
 * Next's development server, which compiles on demand; no direct dispatch). Built by `npm run build`
 * into .next/triad/server.js (esbuild, with the `app/` route list baked in) and run with the node flags
 * of scripts/server-args.mjs.
 *
 * A small server around Next's request handler, so that the app knows the real peer address of each
 * request (x-triad-peer, under a per-process key; client-sent values are overwritten), request targets
 * that would be costly to parse are refused before Next parses them, the chat completion route is
 * served directly (./direct-routes.ts), every request is counted and logged, and the process shuts
 * down in order: stop accepting, finish open requests, run the shutdown hooks (the database last).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import module from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { config, ConfigError, type Config } from '@/lib/config';
import { rewrittenRoutes } from '@/lib/http/page-rewrites';
import { refusalBody, refuseTarget } from '@/lib/http/request-guard';
import { log } from '@/lib/log';
import { observeRequest, routeLabel, routeTable, setRouteTable, watchProcess } from '@/lib/metrics';
import { inRequest } from '@/lib/observability/context';
import { endServerSpan, startServerSpan, startTracing, tracer } from '@/lib/observability/tracing';
import { agentBundle } from '@/lib/node-agent/bundle';
import { runShutdown } from '@/lib/shutdown';
import { apiHeaders, DIRECT_ROUTES, directRoute, pageHeaders, serveDirect, tableRoute } from './direct-routes';
import { definitionAt } from './routes';
import { options, unrouted } from './unrouted';
import { idleCollector } from './idle-gc';
import { loadPrerendered } from './prerendered';
import { drainAllTunnels, FORWARD_PATH, isTunnelPath, serveForwarded, upgradeRequired, upgradeTunnel } from '@/lib/tunnel/server';
import { requestBegan, requestEnded } from '@/lib/core/in-flight';
import { setPhase, startupPhase, whenReady } from '@/lib/core/phase';
import { database, isNewEmbeddedDataDir } from '@/lib/db/client';

/** The app's routes (`/api/v1/uptime/route`, …), listed by the build (scripts/build-if-needed.mjs). */
declare const TRIAD_APP_ROUTES: string[];
/** Triad's version (package.json), baked in by the build. */
declare const TRIAD_VERSION: string;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** A public file (favicon.ico, robots.txt, an image): a last path segment with an extension, outside the API. */
const STATIC_FILE = /^\/(?!api\/|organization\/api\/)(?:[^/]+\/)*[^/]+\.[A-Za-z0-9]{2,5}$/;
const dev = process.argv.includes('--dev');
// V8's compiled code of the modules loaded from here on (Next's server runtime, the app's chunks, the
// embedded database) is kept on disk (NODE_COMPILE_CACHE, else the system's temporary directory) and
// reused by the next start: a second of compiling on this project's machine. Node 22 and later.
if (!dev) (module as { enableCompileCache?: () => unknown }).enableCompileCache?.(); // (@types/node is Node 20's)
Object.assign(process.env, { NODE_ENV: dev ? 'development' : 'production', NEXT_TELEMETRY_DISABLED: '1' });

let settings: Config;
try {
  settings = config();
} catch (e) {
  console.error(`triad: ${e instanceof ConfigError ? e.message : String(e)}`);
  process.exit(1);
}
const { PORT: port, TRIAD_HOST: host, TRIAD_TRUST_PROXY: trustProxy, TRIAD_MAX_QUERY_PARAMS: maxQueryParams } = settings;

// An error no code caught is logged, and the server goes on serving: what Next's runtime does once it is
// loaded (at the first page, below), so that a server whose dashboard was never opened does not stop at a
// fault that the same server, visited, would have logged. (Next adds its own listeners when it loads.)
process.on('uncaughtException', (e) => log.error('uncaught exception', { error: e?.stack ?? String(e) }));
process.on('unhandledRejection', (e) => log.error('unhandled rejection', { error: (e as Error)?.stack ?? String(e) }));

// A new embedded database is made (its cluster, migrations and the demo's history) in a child process
// (./set-up.ts, built beside this file), which ends once the directory is ready: what that work leaves in
// the process's memory (the malloc heap's holes, code compiled for it) goes with the child.
// On a first start that child begins at once, while this process loads Next; start-up waits for it.
let settingUp: ChildProcess | undefined;
const settingUpDone: Promise<Error | null> = isNewEmbeddedDataDir(settings) ? setUpInChild() : Promise.resolve(null);

// The key under which the server tells the app each request's peer address (x-triad-peer): random for
// each process, so the header is believed only when this server set it (never under plain `next start`).
const PEER_KEY = randomBytes(18).toString('base64url');
process.env.TRIAD_INTERNAL_PEER_KEY = PEER_KEY;

// In production Next is given the configuration its build resolved (.next/required-server-files.json),
// as its own standalone server does, rather than loading next.config.ts again: that would load SWC's
// native compiler (25 MB resident, and a thread pool) only to transpile the file.
// (Without that file, a build by other means, Next loads next.config.ts itself.)
const resolvedConfig = path.join(process.cwd(), '.next', 'required-server-files.json');
if (!dev && fs.existsSync(resolvedConfig)) {
  const { config: built } = JSON.parse(fs.readFileSync(resolvedConfig, 'utf8')) as { config: unknown };
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(built);
}
// Next (its server runtime) is loaded when a request first needs it, not at start: the API is served
// past it (./direct-routes.ts), and so are the dashboard's prerendered pages and the build's files
// (./prerendered.ts), so that a server called and visited does not hold Next's runtime (about 16 MB of
// resident memory), nor its patches of Date and Math.random. What needs it (/api/ping, an unknown page's
// 404, a request the page server does not know exactly) pays for the load once (about half a second).
// The development server loads it now, as it compiles on demand anyway; a start without the app's build
// fails now too.
type NextHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;
let nextHandler: Promise<NextHandler> | undefined;
const loadNext = async (): Promise<NextHandler> => {
  const started = performance.now();
  const { default: next } = await import('next');
  const app = next({ dev, dir: process.cwd(), hostname: host === '0.0.0.0' ? 'localhost' : host, port });
  await app.prepare();
  log.info('app loaded', { ms: Math.round(performance.now() - started) });
  return app.getRequestHandler();
};
/** Next's handler, loaded at the first call; a failed load is tried again at the next. */
const nextHandle = () =>
  (nextHandler ??= loadNext().catch((e: unknown) => {
    nextHandler = undefined;
    throw e;
  }));
if (dev) {
  try {
    await nextHandle();
  } catch (e) {
    console.error(`triad: could not start: ${(e as Error)?.message ?? e}`);
    process.exit(1);
  }
} else if (!fs.existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))) {
  console.error(`triad: could not start: no build of the app in ${path.join(process.cwd(), '.next')} (npm run build)`);
  process.exit(1);
}

// Traces, when the OTEL_* variables say where to send them (design §18).
await startTracing({ content: settings.TRIAD_TRACE_CONTENT, version: TRIAD_VERSION });

// Metrics are labelled by the app's routes; any other path shares one label.
setRouteTable(routeTable([...TRIAD_APP_ROUTES, ...rewrittenRoutes()]));
watchProcess();
const direct = !dev && settings.TRIAD_DIRECT_ROUTES;
const directReason = dev ? 'development server' : direct ? null : 'TRIAD_DIRECT_ROUTES is off';
// The dashboard's prerendered pages and the build's files, served past Next like the API (./prerendered.ts).
const pages = direct ? loadPrerendered(path.join(process.cwd(), '.next'), path.join(process.cwd(), 'public')) : null;

// The heap is shrunk when no one is waiting (V8's own memory reducer is off: see scripts/server-args.mjs).
const idle = idleCollector();
if (Number(process.versions.node.split('.')[0]) < 22)
  log.warn('Node.js 20 reached its end of life on 2026-04-30: run Triad on Node 24, 22 or 26', { node: process.version });
if (typeof globalThis.gc !== 'function')
  log.warn('started without the node flags of npm start (see scripts/server-args.mjs): V8 will shrink the heap during requests');

// A client gets TRIAD_HEADERS_TIMEOUT_MS to send its headers and TRIAD_REQUEST_TIMEOUT_MS for its
// whole request (the reply, a long stream say, is not limited); then 408 and the connection closes.
// Node checks them on an interval: a second, so that a stalled client is let go within that.
// An idle kept-alive connection stays TRIAD_KEEP_ALIVE_TIMEOUT_MS, longer than a proxy in front keeps its own.
const timeouts = {
  headersTimeout: settings.TRIAD_HEADERS_TIMEOUT_MS,
  requestTimeout: Math.max(settings.TRIAD_REQUEST_TIMEOUT_MS, settings.TRIAD_HEADERS_TIMEOUT_MS),
  connectionsCheckingInterval: 1000,
  keepAliveTimeout: settings.TRIAD_KEEP_ALIVE_TIMEOUT_MS,
};
let ready = false;
const server = http.createServer(timeouts, (req, res) => {
  const started = performance.now();
  // The path only: query strings carry secrets (`secret`, `passcode`) and are never logged.
  const path = (req.url ?? '/').split('?')[0]!;
  // The socket's peer address, for lib/http/peer.ts, under this process's key (a client cannot send
  // one that is believed), and whether a proxy says it forwarded the request.
  const forwarded = req.headers['x-forwarded-for'] || req.headers.forwarded || req.headers['x-real-ip'];
  req.headers['x-triad-peer'] = `${PEER_KEY} ${forwarded ? 'forwarded' : 'direct'} ${req.socket.remoteAddress ?? ''}`;
  // A request id for the logs: the caller's, if it looks like one, else a new one.
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  req.headers['x-request-id'] = id;
  // Its SERVER span, when traces are exported (design §18), continuing the client's traceparent.
  const t = tracer();
  const span = t ? startServerSpan(t, req, routeLabel(path), id) : undefined;
  // Until the server is ready, the health check answers at once with how far start-up has come.
  if (!ready && (req.url === '/api/health' || req.url?.startsWith('/api/health?'))) return void starting(withId(req, res));
  // Shutting down: answer, then close the connection, so that a client reusing a kept-alive one (a
  // proxy's health check, say) does not hold the shutdown open until its deadline.
  if (stopping) res.shouldKeepAlive = false;
  // HTTPS is the proxy's (Triad serves plain HTTP): believed only with TRIAD_TRUST_PROXY.
  if (trustProxy && String(req.headers['x-forwarded-proto']).split(',')[0]!.trim() === 'https')
    res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  // In flight from here to its close (the health check's answers while starting are not counted: they
  // return above, and a begin without its end would hold off the idle collection and work waiting for quiet for good).
  requestBegan();
  res.on('close', () => {
    requestEnded();
    const seconds = (performance.now() - started) / 1000;
    // A client gone before any reply was sent: 499 (nginx's "client closed request"), not the 200 never written.
    const status = res.headersSent ? res.statusCode : 499;
    observeRequest(req.method ?? 'GET', path, status, seconds);
    if (span) endServerSpan(span, status);
    if (path.startsWith('/_next/')) return;
    const ms = Math.round(seconds * 10000) / 10;
    const traceId = span?.spanContext().traceId;
    const entry = { reqId: id, traceId, method: req.method, path, status, ms, aborted: !res.writableFinished || undefined };
    // Page prefetches and static files that were served are routine: debug level (TRIAD_LOG_LEVEL=debug shows them).
    const routine = status < 400 && (req.headers['next-router-prefetch'] !== undefined || STATIC_FILE.test(path));
    if (routine) log.debug('request', entry);
    else log.info('request', entry);
  });
  // The request context (design §18): its id, path and span, read by the logger, the pipeline and the model clients.
  inRequest({ requestId: id, path, span }, () => dispatch(req, res));
});

/**
 * The reply's X-Request-Id (the id the request handler settled on), set on the response for a reply
 * written by anything but a route's Node door: that one sends it in its one list of headers
 * (./direct-routes.ts), which Node writes without an object of the response's headers.
 */
function withId(req: http.IncomingMessage, res: http.ServerResponse) {
  res.setHeader('X-Request-Id', req.headers['x-request-id']!);
  return res;
}

/** Where a request goes: refused, the agent's download, a tunnel, a direct route, or Next. */
function dispatch(req: http.IncomingMessage, res: http.ServerResponse) {
  if (!ready) return void whenReady().then(() => dispatch(req, res)); // start-up is not done
  // A target that would cost the framework far more than a request should is refused before it parses it.
  const refused = refuseTarget(req.url ?? '/', maxQueryParams);
  if (refused) return void refuse(req, withId(req, res), refused);
  const route = direct ? directRoute(req) : undefined;
  if (route) return void serveDirect(route, req, res, directFailed);
  if (req.url === '/downloads/triad-node.mjs' && (req.method === 'GET' || req.method === 'HEAD')) return serveAgent(withId(req, res));
  if (isTunnelPath(req.url)) return upgradeRequired(withId(req, res), apiHeaders());
  const forwardedTunnel = FORWARD_PATH.exec(req.url ?? '');
  if (forwardedTunnel)
    return void serveForwarded(req, withId(req, res), decodeURIComponent(forwardedTunnel[1]!), forwardedTunnel[2]!).catch(() =>
      res.destroy(),
    );
  void serveOther(req, res);
}

const directFailed = (e: unknown) => log.error('direct route failed', { error: (e as Error)?.message ?? String(e) });

/**
 * Another route of the API through its Node door (./direct-routes.ts), or its OPTIONS, else Next — unless
 * the request is one under the API that no route takes (404 or 405 in its group's shape).
 */
async function serveOther(req: http.IncomingMessage, res: http.ServerResponse) {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0]!;
  const notLoaded = (e: Error) => (log.error('route not loaded', { error: e.message }), null);
  if (direct) {
    const found = await tableRoute(method, path).catch(notLoaded);
    if (found) return serveDirect(found.node, req, res, directFailed, found.params);
  }
  withId(req, res);
  const reply = async () => (direct && method === 'OPTIONS' && (await options(path))) || unrouted(method, path);
  const answer = await reply().catch(notLoaded);
  if (!answer) {
    const served = await pages
      ?.serve(req, res, pageHeaders())
      .catch((e: Error) => (log.error('page not served', { error: e.message }), false));
    return void (served || serveNext(req, res));
  }
  res.statusCode = answer.status;
  for (const [k, v] of apiHeaders()) res.setHeader(k, v);
  for (const [k, v] of Object.entries(answer.headers)) res.setHeader(k, v);
  if (answer.body === undefined) return void res.end();
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(answer.body));
}

/** A request for Next (a page, a static file; every request with direct routes off): its handler, loaded at the first. */
async function serveNext(req: http.IncomingMessage, res: http.ServerResponse) {
  let handle: NextHandler;
  try {
    handle = await nextHandle();
  } catch (e) {
    log.error('the app could not be loaded', { error: (e as Error)?.message ?? String(e) });
    res.statusCode = 503;
    for (const [k, v] of pageHeaders()) res.setHeader(k, v);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Retry-After', '5');
    return void res.end('The dashboard could not be loaded; the server log says why.\n');
  }
  res.once('finish', () => discardUnread(req));
  await handle(req, res);
}

/**
 * The rest of a request body that Next's handler answered without reading (a body too large, a
 * refused key), read and dropped once the reply is out, so that the kept-alive connection's next
 * request is read. Node does that itself for a body nobody read (its `_dump`), but its way cannot
 * make a request flow while something listens for 'readable' — as the async iterator of Next's
 * request body stream does once it has started, which on Node 26 it has by then: the connection
 * stalled until the request timeout, and the client's next request on it failed.
 */
function discardUnread(req: http.IncomingMessage) {
  if (req.complete || req.destroyed) return;
  req.removeAllListeners('readable'); // the iterator still ends at the request's 'end' or 'close'
  process.nextTick(() => req.resume()); // once Node has seen that nothing listens for 'readable' any more
}

// Node agents' tunnels (design §14): WebSocket upgrades of GET /api/v1/node/connect.
// The development server's hot reload (/_next/hmr) is Next's own: it listens on this server too.
server.on('upgrade', (req, socket, head) => {
  if (upgradeTunnel(req, socket, head)) return;
  if (dev && req.url?.startsWith('/_next/hmr')) return;
  socket.destroy();
});

// The node agent, one file with nothing to install (built by scripts/build-if-needed.mjs), for partners' machines.
function serveAgent(res: http.ServerResponse) {
  fs.readFile(agentBundle(), (err, data) => {
    for (const [k, v] of apiHeaders()) res.setHeader(k, v);
    if (err) {
      res.statusCode = 404;
      return void res.end('the node agent is not built here (npm run build)\n');
    }
    res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
    res.setHeader('Content-Disposition', 'attachment; filename="triad-node.mjs"');
    res.setHeader('Cache-Control', 'no-cache');
    res.end(data);
  });
}

/** The 400 of a refused request target, in the error shape of the route it names (the route table's), with the headers of every reply. */
async function refuse(req: http.IncomingMessage, res: http.ServerResponse, reason: string) {
  const route = await definitionAt((req.url ?? '/').split('?')[0]!).catch(
    (e: Error) => (log.error('route not loaded', { error: e.message }), null),
  );
  res.statusCode = 400;
  for (const [k, v] of apiHeaders()) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(refusalBody(route, reason)));
}

server.on('error', (e) => {
  log.error('cannot listen', { host, port, error: e.message });
  void shutdown(1);
});
server.listen(port, host, async () => {
  // Start-up (configuration check, database lock, migrations, demo set-up: lib/startup.ts) runs here, in
  // the server's own copy of the code, before we say "ready"; Next's instrumentation hook leaves it to this
  // server (instrumentation.ts). Until then the health check answers 503 with the phase, and other requests wait.
  try {
    const failed = await settingUpDone;
    if (failed) throw failed;
    const { startServer } = await import('@/lib/startup');
    await startServer();
    await (await database()).ping();
  } catch (e) {
    if (stopping) return; // asked to stop while starting
    console.error(`triad: start-up failed: ${(e as Error)?.message ?? e}`);
    return void shutdown(1);
  }
  ready = true;
  setPhase('ready');
  if (directReason) log.warn('direct routes off: every request goes through Next', { reason: directReason });
  idle.soon(); // start-up's garbage (loading Next, start-up's code), at the first quiet spell
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`;
  log.announce('ready', { url, directRoutes: direct ? DIRECT_ROUTES : [] });
});

/** Runs ./set-up.ts (with this process's node flags); resolves once it has made the directory, with null, or with what went wrong. */
function setUpInChild(): Promise<Error | null> {
  setPhase('demo');
  return new Promise((resolve) => {
    const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), 'set-up.js');
    // Without the server's malloc setting (scripts/server-flags.mjs): mapping each block of 32 KiB and more
    // made the set-up's many large, short-lived allocations system calls (twice the time); the child's
    // heap ends with it anyway. And a larger young generation: fewer collections for a process this short.
    const env = { ...process.env };
    delete env.MALLOC_MMAP_THRESHOLD_;
    const child = (settingUp = spawn(process.execPath, [...process.execArgv, '--max-semi-space-size=64', entry], {
      stdio: 'inherit',
      env,
    }));
    child.on('error', resolve);
    child.on('exit', (code, signal) => {
      settingUp = undefined;
      resolve(code === 0 ? null : new Error(`the data directory's set-up ended with ${signal ?? `exit code ${code}`}`));
    });
  });
}

/** The health check's answer while the server starts: 503 with the phase it is in, at once. */
function starting(res: http.ServerResponse) {
  for (const [k, v] of apiHeaders()) res.setHeader(k, v);
  res.writeHead(503, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Retry-After': '1' });
  res.end(JSON.stringify({ status: 'starting', phase: startupPhase().phase }));
}

let stopping = false;
async function shutdown(code: number) {
  if (stopping) process.exit(code);
  stopping = true;
  log.info('shutting down: finishing open requests', { deadlineMs: settings.TRIAD_SHUTDOWN_DEADLINE_MS });
  settingUp?.kill('SIGTERM'); // a first start's set-up, still under way: the next start begins it again
  drainAllTunnels();
  setTimeout(() => process.exit(code), settings.TRIAD_SHUTDOWN_DEADLINE_MS).unref();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // Idle connections are closed now; one whose reply ends later would be kept open by its client for
    // the keep-alive it was told (TRIAD_KEEP_ALIVE_TIMEOUT_MS), and hold the close until the deadline,
    // which skips the clean shutdown below: so each is closed as soon as it falls idle.
    server.closeIdleConnections();
    setInterval(() => server.closeIdleConnections(), 100).unref();
  });
  try {
    await runShutdown();
  } finally {
    process.exit(code);
  }
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
