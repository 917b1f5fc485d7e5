import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { findPartnerBySecretAlone } from '@/lib/auth/credentials';
import { config } from '@/lib/config';
import { getDb } from '@/lib/db/client';
import { log } from '@/lib/log';
import { instanceKey, tunnelsOfPartner, tunnelTransport, WINDOW, type Tunnel } from './registry';
import { safeEqual } from '@/lib/auth/tokens';
import { ApiError } from '@/lib/core/errors';
import { forbidden, linkErrorBody, serviceUnavailable, unauthorized } from '@/lib/errors/link';
import { closeTunnel, openTunnel, PING_MS, tunnelFrame } from './sessions';
import { CLOSE, type Frame, HELLO_MS, parseFrame, TUNNEL_HEADERS, TUNNEL_PATH, TUNNEL_PATHS } from './protocol';

/*
 * `GET /api/v1/node/connect` (design §14): a node agent's WebSocket, upgraded here by Triad's own
 * server (Next has no WebSocket routes). The partner secret comes as `Authorization: Bearer`; the
 * first frame is the agent's hello, within HELLO_MS. Triad pings every PING_MS; two pings
 * unanswered close the tunnel. Frames larger than TRIAD_TUNNEL_MAX_FRAME_BYTES close it (1009).
 */

let wss: WebSocketServer | null = null;
let tunnelDb: Awaited<ReturnType<typeof getDb>> | null = null;
/** Every tunnel's WebSocket on this instance, its hello answered or not yet (the shutdown closes them all). */
type Link = { tunnel(): Tunnel | null; close(code: number, reason: string): void };
const links = new Set<Link>();
let stopping = false;
const shuttingDown = () => serviceUnavailable('Triad is shutting down; connect again');

/** Whether a request target is the tunnel's path (its query aside), without splitting every request's URL. */
export const isTunnelPath = (url = '') =>
  url.startsWith(TUNNEL_PATH) && (url.length === TUNNEL_PATH.length || url[TUNNEL_PATH.length] === '?');

/** An HTTP refusal of the upgrade, in the statistics group's error shape (the partner's). */
function refuse(socket: Duplex, e: ApiError) {
  const body = JSON.stringify(linkErrorBody(e));
  const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...e.headers, Connection: 'close' };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.end(`HTTP/1.1 ${e.status} ${http.STATUS_CODES[e.status] ?? 'Error'}\r\n${head.join('')}\r\n${body}`);
}

/**
 * A request for TUNNEL_PATH that is not a WebSocket upgrade (a browser, curl, a proxy that dropped the
 * Upgrade header): 426, saying what the path is for, rather than the app's page for an unknown path.
 */
export function upgradeRequired(res: http.ServerResponse, headers: [string, string][]) {
  const e = new ApiError(426, 'UPGRADE_REQUIRED', {
    detail: `${TUNNEL_PATH} is where node agents open their tunnel, a WebSocket; run the node agent (npm run node:connect, or /downloads/triad-node.mjs), and let a proxy in front pass WebSocket upgrades`,
  });
  for (const [k, v] of headers) res.setHeader(k, v);
  res.writeHead(426, { 'Content-Type': 'application/json', Upgrade: 'websocket', Connection: 'Upgrade' });
  res.end(JSON.stringify(linkErrorBody(e)));
}

/** The server's `upgrade` event: a tunnel on TUNNEL_PATH; false for any other path (not ours). */
export function upgradeTunnel(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean {
  if (!isTunnelPath(req.url)) return false;
  socket.on('error', () => {}); // a client gone mid-handshake is no error of ours
  if (stopping) {
    refuse(socket, shuttingDown());
    return true;
  }
  void accept(req, socket, head).catch((e: Error) => {
    log.error('tunnel not accepted', { error: e.message });
    refuse(socket, serviceUnavailable('the tunnel could not be opened; try again'));
  });
  return true;
}

async function accept(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
  const c = config();
  const auth = req.headers.authorization ?? '';
  const secret = auth.startsWith('Bearer ') ? auth.slice(7).trim() : '';
  if (!secret) return refuse(socket, unauthorized('the partner secret is needed (Authorization: Bearer <secret>)'));
  const db = await getDb();
  const partner = await findPartnerBySecretAlone(db, secret);
  if (!partner) return refuse(socket, unauthorized('the partner secret is wrong or was rotated'));
  if (partner.suspended) return refuse(socket, forbidden('the organization is suspended'));
  if (tunnelsOfPartner(partner.id) >= c.TRIAD_TUNNEL_MAX_PER_PARTNER)
    return refuse(
      socket,
      new ApiError(429, 'TOO_MANY_REQUESTS', { detail: `the partner holds ${c.TRIAD_TUNNEL_MAX_PER_PARTNER} tunnels already` }),
    );
  if (stopping) return refuse(socket, shuttingDown()); // it began to stop while this was looked up
  wss ??= new WebSocketServer({ noServer: true, maxPayload: c.TRIAD_TUNNEL_MAX_FRAME_BYTES, perMessageDeflate: false });
  const address = agentAddress(req);
  wss.handleUpgrade(req, socket, head, (ws) => serve(ws, partner.id, address));
}

/** Where an agent connects from: the socket's address, or with TRIAD_TRUST_PROXY the last X-Forwarded-For entry. */
function agentAddress(req: http.IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-for'];
  const last = typeof forwarded === 'string' ? forwarded.split(',').pop()?.trim() : undefined;
  const address = config().TRIAD_TRUST_PROXY && last ? last : (req.socket.remoteAddress ?? '');
  return (address.startsWith('::ffff:') ? address.slice(7) : address).slice(0, 64);
}

function serve(ws: WebSocket, partnerId: string, address: string) {
  let tunnel: Tunnel | null = null;
  let opening: Promise<unknown> | null = null;
  const close = (code: number, reason: string) => {
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
    setTimeout(() => ws.terminate(), 2000).unref();
  };
  const link = { send: (text: string) => ws.readyState === ws.OPEN && ws.send(text), close };
  const entry: Link = { tunnel: () => tunnel, close };
  links.add(entry);
  if (stopping) close(CLOSE.goingAway, 'Triad is shutting down');
  const helloTimer = setTimeout(() => close(CLOSE.protocol, `no hello within ${HELLO_MS} ms`), HELLO_MS);

  // Liveness: a ping every PING_MS; two unanswered close the tunnel.
  let missed = 0;
  ws.on('pong', () => (missed = 0));
  const pinger = setInterval(() => {
    if (++missed > 2) return close(CLOSE.timeout, 'two pings unanswered');
    ws.ping();
  }, PING_MS);

  ws.on('message', (data, binary) => {
    if (binary) return close(CLOSE.protocol, 'frames are text');
    const text = data.toString();
    if (tunnel) return tunnelFrame(tunnelDb!, tunnel, text);
    if (opening) return close(CLOSE.protocol, 'a frame before the welcome');
    const hello = parseFrame(text);
    if (typeof hello === 'string') return close(CLOSE.protocol, hello);
    if (hello.t !== 'hello') return close(CLOSE.protocol, 'the first frame must be a hello');
    clearTimeout(helloTimer);
    opening = (async () => {
      tunnelDb ??= await getDb();
      const t = await openTunnel(tunnelDb, partnerId, hello, link, address);
      if (ws.readyState !== ws.OPEN) return void closeTunnel(tunnelDb, t, 'closed during the hello');
      tunnel = t;
      const welcome: Frame = {
        t: 'welcome',
        provider: t.providerName,
        window: WINDOW,
        max_frame: config().TRIAD_TUNNEL_MAX_FRAME_BYTES,
        version: t.version,
      };
      ws.send(JSON.stringify(welcome));
    })().catch((e: Error) => {
      log.warn('tunnel hello failed', { error: e.message });
      close(1011, 'the node could not be registered');
    });
  });
  ws.on('error', (e) => log.warn('tunnel error', { error: e.message }));
  ws.on('close', (code, reason) => {
    links.delete(entry);
    clearTimeout(helloTimer);
    clearInterval(pinger);
    const why = reason.toString() || `code ${code}`;
    void (async () => {
      await opening;
      if (tunnel && tunnelDb) await closeTunnel(tunnelDb, tunnel, why);
    })();
  });
}

/**
 * Triad is stopping (lib/server/main.ts): no new request goes down a tunnel held here (routing, and the
 * other instances' forwarding, fail over, as when an agent drains), the requests in flight finish,
 * and each tunnel is closed (1001: its agent reconnects, to another instance or to this one when it is
 * back) as soon as it carries none; at the latest, the shutdown's deadline ends the process. A
 * tunnel still saying hello is closed at once, and no new one is taken (503), so that none is left
 * open to hold the server's close until the deadline.
 */
export function drainAllTunnels(): void {
  stopping = true;
  const closing = new Set<Link>();
  const closeIdle = () => {
    let busy = 0;
    for (const link of links) {
      if (closing.has(link)) continue;
      const t = link.tunnel(); // (null: its hello is not answered yet; it is closed at once)
      if (t) t.draining = true;
      if (t && (t.channels.size > 0 || t.heads.size > 0)) {
        busy++;
        continue;
      }
      closing.add(link);
      link.close(CLOSE.goingAway, 'Triad is shutting down');
    }
    if (busy) setTimeout(closeIdle, 100).unref();
  };
  closeIdle();
}

/**
 * `POST /api/internal/tunnels/{provider}/{path}`: another instance's request for a tunnel this one
 * holds, the path one a tunnel may carry (./protocol.ts TUNNEL_PATHS).
 */
export const FORWARD_PATH = new RegExp(
  `^/api/internal/tunnels/([A-Za-z0-9_-]{1,100})(${TUNNEL_PATHS.map((p) => p.replace(/\//g, '\\/')).join('|')})$`,
);

/**
 * Serves another instance's request for a tunnel held here (design §14): the instance key as bearer
 * (derived from the secret key the cluster shares, compared in constant time), the body sent down the
 * tunnel as it came, the reply passed back as it comes (status, then the pieces, with back-pressure).
 * The caller treats it as an OpenAI-compatible server: a tunnel not held here is a 503 it fails over on.
 */
export async function serveForwarded(req: http.IncomingMessage, res: http.ServerResponse, providerId: string, path: string) {
  const reply = (status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message } }));
  };
  const auth = req.headers.authorization ?? '';
  if (req.method !== 'POST' || !auth.startsWith('Bearer ') || !safeEqual(auth.slice(7), instanceKey()))
    return reply(401, 'the instance key is needed');
  const limit = config().TRIAD_MAX_CHAT_BODY_BYTES;
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) return reply(413, 'the body is too large');
    parts.push(part);
  }
  const abort = new AbortController();
  res.on('close', () => abort.abort(new Error('the forwarding instance went away')));
  let exchange;
  try {
    const headers = Object.fromEntries(TUNNEL_HEADERS.flatMap((h) => (typeof req.headers[h] === 'string' ? [[h, req.headers[h]]] : [])));
    exchange = await tunnelTransport(providerId)(path, Buffer.concat(parts).toString('utf8'), abort.signal, headers);
  } catch (e) {
    return reply(503, `the node's tunnel is not held here: ${(e as Error).message}`);
  }
  res.writeHead(exchange.status, {
    'content-type': 'text/plain; charset=utf-8',
    ...(exchange.retryAfter ? { 'retry-after': exchange.retryAfter } : {}),
  });
  try {
    for await (const piece of exchange.pieces()) {
      if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  } catch {
    res.destroy(); // the tunnel broke mid-reply: the caller sees the reply cut off
  }
}
