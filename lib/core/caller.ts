import type { WireFormat } from './errors';

/*
 * A request as the auth schemes see it: what it carries and where it came from, without the HTTP layer.
 * The route kernel (lib/http/auth.ts) makes one per call; each scheme's lookup lives beside the
 * credentials it reads (lib/auth/callers.ts, lib/console/callers.ts, lib/aliases/callers.ts) and throws
 * the route's own error format.
 */

/** Rates a second: `link` per org token on the alias group, `stats` per org token on statistics and ingestion, `address` per client address. */
export type Limiter = 'link' | 'stats' | 'address';

export type Caller = {
  method: string;
  header(name: string): string | null;
  /** The token of `Authorization` (`Bearer <token>`, or bare), if any. */
  bearer: string | null;
  /** The client's address, for per-address limits (worked out when first asked). */
  address(): string;
  /** The route's error format. */
  format: WireFormat;
  /** Counts the call: `points` in `durationS` for `key` under `name`; past them, the format's 429 (`why`: whose rate). */
  count(name: string, key: string, points: number, durationS: number, why?: string): Promise<void>;
  /** Counts the call on one of the per-second rates. */
  perSecond(limiter: Limiter, key: string): Promise<void>;
  /**
   * Whether the call came from this machine: a loopback peer, through no proxy. A Host header that
   * does not name this machine is refused first (403), whatever the peer.
   */
  fromThisMachine(): boolean;
  /** This server's origin as the request reached it: `http(s)://<Host>`. */
  ownOrigin(): string;
};
