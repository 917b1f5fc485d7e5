import { secretBox } from '@/lib/auth/secret-box';
import { config, ownUrl } from '@/lib/config';
import { upstreamBusy } from '@/lib/errors/chat';
import { shared } from '@/lib/core/runtime';
import { type Exchange, sseSplitter } from '@/lib/providers/http-client';
import { CHAT_COMPLETIONS } from '@/lib/providers/client';
import { Channel } from './channel';
import { type Frame, TRACE_HEADERS, TUNNEL_HEADERS, TUNNEL_PATHS, type TunnelPath } from './protocol';

/*
 * Tunnels this instance holds (design §14), and the transport down one to its node's model server: a
 * channel (./channel.ts: flow control both ways). Opening and closing them, their health and their
 * node's events: ./sessions.ts; the WebSocket and the forwarding route: ./server.ts; how the
 * providers' pool reaches a tunnel provider: ./way.ts.
 */
/** Where other instances reach this one (TRIAD_INTERNAL_URL, else its own listening address). */
export function ownInternalUrl(): string {
  const c = config();
  return c.TRIAD_INTERNAL_URL ? c.TRIAD_INTERNAL_URL.replace(/\/+$/, '') : ownUrl(c);
}

/** The bearer of the forwarding route between instances: derived from the secret key they share. */
export const instanceKey = () => secretBox().derive('triad-instance-forwarding');

/** The path at which the holder of a tunnel serves it to the other instances (an OpenAI-compatible base). */
export const forwardBase = (holder: string, providerId: string) => `${holder}/api/internal/tunnels/${encodeURIComponent(providerId)}`;

/** Characters a request's reply may have on the way before the agent waits for credit. */
export const WINDOW = 256 * 1024;

/** The WebSocket as the registry needs it (the server layer owns the real one). */
export type TunnelLink = { send(text: string): void; close(code: number, reason: string): void };

export type Tunnel = {
  providerId: string;
  providerName: string;
  partnerId: string;
  link: TunnelLink;
  channels: Map<number, Channel>;
  /** Head of each request not answered yet. */
  heads: Map<number, { resolve(h: { status: number; retryAfter?: string }): void; reject(e: Error): void }>;
  nextId: number;
  maxStreams: number;
  peerWindow: number;
  draining: boolean;
  models: string[];
  /** The protocol version both ends speak (./protocol.ts): 1 carries chat completions only. */
  version: number;
  connectedAt: number;
  closed: boolean;
};

type Registry = { byProvider: Map<string, Tunnel>; byPartner: Map<string, number>; timer: NodeJS.Timeout | null };
declare module '@/lib/core/runtime' {
  interface Runtime {
    tunnels: Registry;
  }
}
export const registry = () => shared('tunnels', () => ({ byProvider: new Map(), byPartner: new Map(), timer: null }) as Registry);

/** Whether this instance holds the tunnel of a provider (only such tunnels are routed to here). */
export const holdsTunnel = (providerId: string): boolean => {
  const t = registry().byProvider.get(providerId);
  return !!t && !t.draining && !t.closed;
};

/** The tunnels this instance holds, for the console and the metrics. */
export const heldTunnels = (): Tunnel[] => [...registry().byProvider.values()];

/** Tunnels a partner holds on this instance (bounded by TRIAD_TUNNEL_MAX_PER_PARTNER). */
export const tunnelsOfPartner = (partnerId: string): number => registry().byPartner.get(partnerId) ?? 0;

/** Closes every tunnel of a partner (its secret was rotated). */
export function closePartnerTunnels(partnerId: string, code: number, reason: string): number {
  let n = 0;
  for (const t of registry().byProvider.values()) {
    if (t.partnerId !== partnerId) continue;
    t.link.close(code, reason);
    n++;
  }
  return n;
}

/** A tunnel's reply: also as it came, piece by piece (what the forwarding route passes on). */
export type TunnelExchange = Exchange & { pieces(): AsyncGenerator<string> };

/**
 * The transport of a tunnel provider (lib/providers/http-client.ts's modelClientOver): the request goes down the
 * tunnel as a channel, the reply comes back with flow control. A node at its request limit is busy
 * (429: tried elsewhere); a tunnel gone is unreachable (tried elsewhere).
 */
export function tunnelTransport(providerId: string) {
  return async (path: string, body: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<TunnelExchange> => {
    const t = registry().byProvider.get(providerId);
    if (!t || t.closed || t.draining) throw new Error('the node is not connected');
    // (Version 1 carries chat completions only: the router sends such an agent nothing else.)
    if (!TUNNEL_PATHS.includes(path as TunnelPath) || (t.version < 2 && path !== CHAT_COMPLETIONS))
      throw new Error(`this node's tunnel (version ${t.version}) does not carry ${path}`);
    if (t.channels.size >= t.maxStreams) throw upstreamBusy(1);
    const id = t.nextId++;
    const send = (f: Frame) => t.link.send(JSON.stringify(f));
    const ch = new Channel(id, send, t.peerWindow, WINDOW);
    t.channels.set(id, ch);
    let over = false;
    const finish = () => {
      if (over) return;
      over = true;
      signal.removeEventListener('abort', onAbort);
      t.channels.delete(id);
      t.heads.delete(id);
      ch.close();
    };
    const onAbort = () => {
      if (!t.closed && t.channels.has(id)) send({ t: 'cancel', id });
      const e = signal.reason instanceof Error ? signal.reason : new Error('aborted');
      t.heads.get(id)?.reject(e);
      ch.fail(e);
      finish();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const head = new Promise<{ status: number; retryAfter?: string }>((resolve, reject) => t.heads.set(id, { resolve, reject }));
    const carried = t.version < 3 ? TUNNEL_HEADERS.filter((h) => !(TRACE_HEADERS as readonly string[]).includes(h)) : TUNNEL_HEADERS;
    const passed = Object.fromEntries(carried.flatMap((h) => (headers[h] ? [[h, headers[h]]] : [])));
    send(
      t.version < 2
        ? { t: 'open', id }
        : { t: 'open', id, path: path as TunnelPath, ...(Object.keys(passed).length ? { headers: passed } : {}) },
    );
    try {
      await ch.write(body);
      ch.end();
      const { status, retryAfter } = await head;
      /** The reply's pieces; left early (the client went away), the agent is told to cancel. */
      const held: Tunnel = t;
      async function* pieces() {
        try {
          yield* ch.pieces();
        } finally {
          if (!ch.finished && !held.closed && held.channels.has(id)) send({ t: 'cancel', id });
          finish();
        }
      }
      return {
        status,
        retryAfter,
        async text() {
          try {
            return await ch.text();
          } finally {
            finish();
          }
        },
        pieces,
        async *events() {
          const split = sseSplitter();
          let ready: string[] = [];
          for await (const piece of pieces()) {
            split(piece, ready);
            if (!ready.length) continue;
            yield ready;
            ready = [];
          }
        },
      };
    } catch (e) {
      finish();
      throw e;
    }
  };
}
