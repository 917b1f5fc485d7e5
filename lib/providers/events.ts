import type { Db } from '@/lib/db/client';
import { shared } from '@/lib/core/runtime';
import { log } from '@/lib/log';

/*
 * What providers tell the rest of Triad (design §16): a linked partner node's connection changed or
 * it is alive (`node`: any number at once, a heartbeat of every tunnel say), a node's provider served a completion (`served`). Providers publish; partner
 * statistics subscribe (lib/stats/subscriptions.ts, wired at start-up), so that the providers import
 * nothing from lib/stats. Subscribers are the process's (every copy of the code publishes to the same
 * ones), and a publication resolves once every subscriber has taken it.
 */
export type NodeEvent = {
  partnerId: string;
  /** The partner's own id of the node. */
  externalId: string;
  type: 'connect' | 'disconnect' | 'heartbeat';
  at: number;
  /** Derived from the provider and the time: the same event published twice (by two instances) counts once. */
  eventId: string;
};
/** A completion (or embeddings call) a node's provider served: `tokens` in all, and `usd` it earned (exact decimal text). */
export type ServedEvent = { nodeId: number; tokens: number; usd: string; at?: number };

type Events = { node: NodeEvent[]; served: ServedEvent };
type Subscribers = { [K in keyof Events]: ((db: Db, e: Events[K]) => void | Promise<void>)[] };

declare module '@/lib/core/runtime' {
  interface Runtime {
    providerEvents: Subscribers;
  }
}
const subscribers = () => shared('providerEvents', (): Subscribers => ({ node: [], served: [] }));

export function subscribe<K extends keyof Events>(kind: K, handler: (db: Db, e: Events[K]) => void | Promise<void>): void {
  (subscribers()[kind] as ((db: Db, e: Events[K]) => void | Promise<void>)[]).push(handler);
}

let warned = false;
/** Hands `e` to every subscriber of `kind`; a subscriber's failure is logged, never the publisher's. */
export async function publish<K extends keyof Events>(db: Db, kind: K, e: Events[K]): Promise<void> {
  const list = subscribers()[kind] as ((db: Db, e: Events[K]) => void | Promise<void>)[];
  if (!list.length && !warned) {
    warned = true;
    log.warn('provider events published with no subscriber: partner statistics are not wired in this process', { kind });
  }
  for (const handler of list) {
    try {
      await handler(db, e);
    } catch (err) {
      log.warn('provider event not recorded', { kind, error: (err as Error).message });
    }
  }
}
