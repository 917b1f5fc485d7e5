import { safeEqual } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { forbidden } from '@/lib/errors/link';

/*
 * Who sent a request. The server (lib/server/main.ts) tells the app each request's socket address in
 * `x-triad-peer: <key> <direct|forwarded> <address>`, under a key it draws at start and keeps in
 * TRIAD_INTERNAL_PEER_KEY: a client cannot forge one (it would need the key), and without the server
 * (plain `next start`) no peer is known at all.
 */
export type Peer = { address: string; forwarded: boolean };
/** A request, or anything that reads its headers alike (a route's Node door). */
export type Headed = { headers: { get(name: string): string | null } };

export function peerOf(request: Headed): Peer | null {
  const key = process.env.TRIAD_INTERNAL_PEER_KEY;
  const value = request.headers.get('x-triad-peer');
  if (!key || !value) return null;
  const [given = '', how, address = ''] = value.split(' ');
  if (!safeEqual(given, key)) return null;
  return { address: address.startsWith('::ffff:') ? address.slice(7) : address, forwarded: how === 'forwarded' };
}

const isLoopbackAddress = (addr: string) => addr === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(addr);

/** Whether the request came from this machine: a loopback socket, with no proxy's forwarding header. */
export function isLoopbackPeer(request: Headed): boolean {
  const peer = peerOf(request);
  return !!peer && !peer.forwarded && isLoopbackAddress(peer.address);
}

/** The client's address for per-address rate limits: the socket's, or with TRIAD_TRUST_PROXY the last X-Forwarded-For entry. */
export function clientAddress(request: Headed): string {
  if (config().TRIAD_TRUST_PROXY) {
    const last = request.headers.get('x-forwarded-for')?.split(',').pop()?.trim();
    if (last) return last.slice(0, 64);
  }
  return peerOf(request)?.address || 'unknown';
}

/** Whether the request came over HTTPS (as a proxy says, with TRIAD_TRUST_PROXY; Triad itself serves plain HTTP). */
export function viaHttps(request: Headed): boolean {
  return config().TRIAD_TRUST_PROXY && request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
}

/** This server's origin as the client reached it: its Host header, over HTTPS when a trusted proxy says so. */
export const ownOrigin = (request: Headed): string => `${viaHttps(request) ? 'https' : 'http'}://${request.headers.get('host') ?? ''}`;

/**
 * Whether the local-only conveniences (demo credentials to a browser, metrics without a token) are
 * served at all: TRIAD_LOCAL_ROUTES, whose `auto` means while the server listens on loopback only.
 */
export function localRoutesEnabled(): boolean {
  const { TRIAD_LOCAL_ROUTES: mode, TRIAD_HOST: host } = config();
  return mode === 'on' || (mode === 'auto' && (host === 'localhost' || isLoopbackAddress(host)));
}

const THIS_MACHINE = ['localhost', '127.0.0.1', '[::1]'];

/** The host name of a Host header, lowercased and without its port; null when there is none. */
export function hostName(host: string | null): string | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(host?.trim() ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

/** Whether the Host header names this machine (localhost, 127.0.0.1, [::1], any port) or a host of TRIAD_ALLOWED_HOSTS. */
export function hostIsThisMachine(host: string | null): boolean {
  const name = hostName(host);
  return name !== null && (THIS_MACHINE.includes(name) || config().TRIAD_ALLOWED_HOSTS.includes(name));
}

/**
 * Local-only routes (demo credentials, the admin route, token-less metrics) answer only under a Host
 * that names this machine: a page on another site whose DNS name was rebound to 127.0.0.1 reaches
 * them from a browser on this machine with a loopback peer, but with its own name in Host.
 */
export function requireLocalHost(request: Headed): void {
  if (!hostIsThisMachine(request.headers.get('host'))) {
    throw forbidden(
      'this route answers only under a Host that names this machine (localhost, 127.0.0.1, [::1]) or one of TRIAD_ALLOWED_HOSTS',
    );
  }
}
