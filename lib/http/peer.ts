import { config } from '@/lib/config';
import { forbidden } from '@/lib/errors/link';

/**
 * Whether the request came from this machine. scripts/start.mjs sets `x-triad-peer` from the
 * socket (overwriting any client-sent value), and to `forwarded` when a proxy forwarded the request;
 * without it (e.g. plain `next start`) the answer is no.
 */
export function isLoopbackPeer(request: Request): boolean {
  const peer = request.headers.get('x-triad-peer');
  if (!peer) return false;
  const addr = peer.startsWith('::ffff:') ? peer.slice(7) : peer;
  return addr === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(addr);
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
export function requireLocalHost(request: Request): void {
  if (!hostIsThisMachine(request.headers.get('host'))) {
    throw forbidden('this route answers only under a Host that names this machine (localhost, 127.0.0.1, [::1]) or one of TRIAD_ALLOWED_HOSTS');
  }
}
