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
