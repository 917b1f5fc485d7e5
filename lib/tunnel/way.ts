import { httpModelClient, modelClientOver } from '@/lib/providers/http-client';
import { STALE_MS, type Way } from '@/lib/providers/pool';
import { forwardBase, holdsTunnel, instanceKey, ownInternalUrl, tunnelTransport } from './registry';

/*
 * How the providers' pool reaches a tunnel provider's model server (design §14): down the
 * node's tunnel when this instance holds it; else over HTTP to the instance that does, while that
 * instance keeps the row fresh (its forwarding route: ./server.ts). The pipeline hands this way to the
 * pool (lib/providers/pool.ts, defineWay), so that the providers need not know the tunnel.
 */
export const tunnelWay: Way = {
  key: (r) => (holdsTunnel(r.id) ? 'here' : (r.heldBy ?? '')),
  client: (r) =>
    holdsTunnel(r.id)
      ? modelClientOver(tunnelTransport(r.id), r.timeoutMs)
      : httpModelClient({ baseUrl: forwardBase(r.heldBy!, r.id), apiKey: instanceKey(), timeoutMs: r.timeoutMs }),
  reachable: (r) =>
    holdsTunnel(r.id) || (!!r.heldBy && r.heldBy !== ownInternalUrl() && !!r.checkedAt && Date.now() - r.checkedAt.getTime() < STALE_MS),
};
