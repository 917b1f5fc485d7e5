// `npm start`: build if the sources changed, then serve Triad on PORT (default 3000).
// `npm run dev` (--dev): the same server around Next's development server (compiles on demand, no
// build, no direct dispatch), so that local routes, request ids and limits behave as under npm start.
// A small custom server around Next's request handler, so that the server knows the real
// peer address of each request (x-triad-peer, under a per-process key; client-sent values are
// overwritten), refuses request targets that would be costly to parse, and can
// shut down in order: stop accepting, finish open requests, close the database.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfNeeded } from './build-if-needed.mjs';
import { idleCollector } from './idle-gc.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const dev = process.argv.includes('--dev');
process.env.NODE_ENV = dev ? 'development' : 'production';
process.env.NEXT_TELEMETRY_DISABLED = '1';

const port = Number(process.env.PORT || 3000);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`triad: Invalid configuration: PORT: must be a whole number from 1 to 65535 (got "${process.env.PORT}")`);
  process.exit(1);
}
const host = process.env.TRIAD_HOST || '127.0.0.1';
const SHUTDOWN_DEADLINE_MS = Number(process.env.TRIAD_SHUTDOWN_DEADLINE_MS || 10_000);

if (dev || process.argv.includes('--no-build')) {
  // the development server compiles on demand; tests build once, up front
} else {
  buildIfNeeded();
}

// The key under which the server tells the app each request's peer address (x-triad-peer): random for
// each process, so the header is believed only when this server set it (never under plain `next start`).
const PEER_KEY = randomBytes(18).toString('base64url');
process.env.TRIAD_INTERNAL_PEER_KEY = PEER_KEY;

const { default: pino } = await import('pino');
const { observeRequest, routeTable, setRouteTable } = await import('../lib/metrics.mjs');
const level = ['debug', 'info', 'warn', 'error', 'silent'].includes(process.env.TRIAD_LOG_LEVEL ?? '')
  ? process.env.TRIAD_LOG_LEVEL
  : 'info';
const logger = pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: true }));
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const trustProxy = ['1', 'true', 'yes', 'on'].includes(process.env.TRIAD_TRUST_PROXY ?? '');

const { default: next } = await import('next');
const app = next({ dev, dir: root, hostname: host === '0.0.0.0' ? 'localhost' : host, port });
const handle = app.getRequestHandler();
try {
  await app.prepare();
} catch (e) {
  console.error(`triad: could not start: ${e?.message ?? e}`);
  process.exit(1);
}

// The chat completion route skips Next's generic pipeline (see direct-routes.mjs); on unless TRIAD_DIRECT_ROUTES is off.
const { configHeaders, loadDirectRoutes } = await import('./direct-routes.mjs');
const { refuseTarget, refusalBody } = await import('../lib/http/request-guard.mjs');
const maxQueryParams = Number(process.env.TRIAD_MAX_QUERY_PARAMS || 128);
// The development server has no build to read these from: its refusals carry no config headers, its metrics one label.
const headersFor = dev ? () => [] : configHeaders(root);
// Metrics are labelled by the routes of this build; any other path shares one label.
if (!dev)
  setRouteTable(routeTable(Object.keys(JSON.parse(fs.readFileSync(path.join(root, '.next/server/app-paths-manifest.json'), 'utf8')))));
const directOff = dev || ['0', 'false', 'no', 'off'].includes(process.env.TRIAD_DIRECT_ROUTES ?? '');
let direct = { routes: [], reason: dev ? 'development server' : 'TRIAD_DIRECT_ROUTES is off', match: () => undefined };

// The heap is shrunk when no one is waiting (V8's own memory reducer is off: see server-args.mjs).
const idle = idleCollector();
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 22)
  logger.warn({ node: process.version }, 'Node.js 20 reached its end of life on 2026-04-30: run Triad on Node 24 (LTS) or 22');
if (typeof globalThis.gc !== 'function')
  logger.warn('started without the node flags of npm start (see scripts/server-args.mjs): V8 will shrink the heap during requests');

const server = http.createServer((req, res) => {
  const started = performance.now();
  idle.begin();
  // The socket's peer address, for lib/http/peer.ts, under this process's key (a client cannot send
  // one that is believed), and whether a proxy says it forwarded the request.
  const forwarded = req.headers['x-forwarded-for'] || req.headers.forwarded || req.headers['x-real-ip'];
  req.headers['x-triad-peer'] = `${PEER_KEY} ${forwarded ? 'forwarded' : 'direct'} ${req.socket.remoteAddress ?? ''}`;
  // A request id for the logs: the caller's, if it looks like one, else a new one.
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  req.headers['x-request-id'] = id;
  res.setHeader('X-Request-Id', id);
  // HTTPS is the proxy's (Triad serves plain HTTP): believed only with TRIAD_TRUST_PROXY.
  if (trustProxy && String(req.headers['x-forwarded-proto']).split(',')[0].trim() === 'https')
    res.setHeader('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  res.on('close', () => {
    idle.end();
    // The path only: query strings carry secrets (`secret`, `passcode`) and are never logged.
    const path = (req.url ?? '/').split('?')[0];
    const seconds = (performance.now() - started) / 1000;
    observeRequest(req.method ?? 'GET', path, res.statusCode, seconds);
    if (!path.startsWith('/_next/')) {
      logger.info(
        {
          reqId: id,
          method: req.method,
          path,
          status: res.statusCode,
          ms: Math.round(seconds * 10000) / 10,
          aborted: !res.writableFinished || undefined,
        },
        'request',
      );
    }
  });
  // A target that would cost the framework far more than a request should is refused before it parses it.
  const refused = refuseTarget(req.url ?? '/', maxQueryParams);
  if (refused) return refuse(req, res, refused);
  const route = direct.match(req);
  if (route) direct.serve(route, req, res).catch(() => res.destroy());
  else handle(req, res);
});
/** The 400 of a refused request target, in its group's error shape, with the headers of every reply. */
function refuse(req, res, reason) {
  res.statusCode = 400;
  for (const [k, v] of headersFor((req.url ?? '/').split('?')[0])) res.setHeader(k, v);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(refusalBody(req.url ?? '/', reason)));
}

server.on('error', (e) => {
  logger.error({ host, port, error: e.message }, 'cannot listen');
  void shutdown(1);
});
server.listen(port, host, async () => {
  // Next prepares its server on the first request; make that happen now, so that start-up
  // (configuration check, database lock, migrations, demo set-up) runs before we say "ready".
  const local = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const res = await fetch(`http://${local.includes(':') ? `[${local}]` : local}:${port}/api/health`).catch(() => null);
  if (!res?.ok) {
    console.error('triad: start-up failed: the health check did not pass');
    return void shutdown(1);
  }
  if (!directOff) {
    try {
      direct = await loadDirectRoutes(root, { onError: (e) => logger.error({ error: e?.message ?? String(e) }, 'direct route failed') });
    } catch (e) {
      direct = { ...direct, reason: `could not load: ${e?.message ?? e}` };
    }
    if (direct.reason) logger.warn({ reason: direct.reason }, 'direct routes off: every request goes through Next');
  }
  idle.collect(); // start-up's garbage (loading Next and the routes), before the first request
  const url = `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`;
  // Always said, whatever the log level: scripts and tests wait for it.
  pino({ base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ sync: true })).info(
    { url, directRoutes: direct.routes },
    'ready',
  );
});

let stopping = false;
async function shutdown(code) {
  if (stopping) process.exit(code);
  stopping = true;
  logger.info({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'shutting down: finishing open requests');
  const timer = setTimeout(() => process.exit(code), SHUTDOWN_DEADLINE_MS);
  timer.unref();
  await new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  try {
    await globalThis[Symbol.for('triad.shutdown')]?.run();
  } finally {
    process.exit(code);
  }
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
