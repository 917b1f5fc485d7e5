import { config } from '@/lib/config';
import type { Db } from '@/lib/db/client';
import { shared } from '@/lib/core/runtime';
import { log } from '@/lib/log';
import { type NodeEvent, subscribe } from '@/lib/providers/events';
import { recordEarnings } from './earnings';
import { ingestEvents } from './ingest';

/*
 * Partner statistics take what providers publish (lib/providers/events.ts, design §16): a linked
 * node's connection changes and heartbeats go through the same ingestion as POST /api/v1/node/events;
 * what a node's provider served goes to its earnings. Wired once a process, by whatever starts it
 * (the server, the admin command, a test).
 */
declare module '@/lib/core/runtime' {
  interface Runtime {
    statisticsWired: boolean;
  }
}

export function wireStatistics(): void {
  let first = false;
  shared('statisticsWired', () => (first = true));
  if (!first) return;
  subscribe('node', async (db: Db, events) => {
    const heartbeatTimeoutMs = config().TRIAD_HEARTBEAT_TIMEOUT_S * 1000;
    const byPartner = new Map<string, NodeEvent[]>();
    for (const e of events) {
      const list = byPartner.get(e.partnerId);
      if (list) list.push(e);
      else byPartner.set(e.partnerId, [e]);
    }
    for (const [partnerId, list] of byPartner) {
      const ingest = (some: NodeEvent[]) =>
        ingestEvents(db, {
          partnerId,
          events: some.map((e) => ({ partner_node_id: e.externalId, type: e.type, at: e.at, event_id: e.eventId })),
          heartbeatTimeoutMs,
        });
      try {
        await ingest(list);
      } catch (e) {
        if (list.length === 1) throw e;
        // One node gone meanwhile refuses its partner's batch: the others' events are still theirs.
        for (const one of list) await ingest([one]).catch((err: Error) => log.warn('node event not recorded', { error: err.message }));
      }
    }
  });
  subscribe('served', (db, e) => recordEarnings(db, e));
}
