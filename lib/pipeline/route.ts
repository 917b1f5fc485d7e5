import type { Offer } from '@/lib/budgets/budgets';
import type { Need } from '@/lib/chat/capabilities';
import type { Db } from '@/lib/db/client';
import { defineWay } from '@/lib/providers/pool';
import { routeCompletion, type Target } from '@/lib/providers/router';
import type { Preferences } from '@/lib/chat/schema';
import type { Tenant } from '@/lib/providers/tenancy';
import { tunnelWay } from '@/lib/tunnel/way';

/*
 * Routing a call (design §10, §16): the providers that serve its model and may serve its tenant, one
 * after another until one has begun to answer (lib/providers/router.ts). Every kind of provider is one
 * of them: a server over HTTP, a node's tunnel (reached the way lib/tunnel/ gives, handed to the pool
 * here), the built-in triad-guide.
 */
defineWay('tunnel', tunnelWay);

export type { Target };

export type RouteCall = {
  db: Db;
  model: string;
  tenant: Tenant;
  signal: AbortSignal;
  needs?: Need[];
  /** What is asked of the server: a tunnel of the protocol's first version carries chat completions only. */
  endpoint?: 'chat' | 'embeddings';
  /** Called once the providers that may serve the call are known, before any is sent it (a budget's reservation). */
  before?: (offers: Offer[]) => Promise<void>;
  /** Routing preferences (design §17): which providers, in which order. */
  preferences?: Preferences | null;
};

/** Runs `attempt` on the call's providers until one answers; its reply, and the name of the provider that gave it. */
export const route = <T>(call: RouteCall, attempt: (target: Target, done: () => void) => Promise<T>) =>
  routeCompletion(call.db, call.model, call.tenant, call.signal, attempt, {
    needs: call.needs ?? [],
    endpoint: call.endpoint ?? 'chat',
    before: call.before,
    preferences: call.preferences,
  });
