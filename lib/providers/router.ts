import { config } from '@/lib/config';
import { ApiError } from '@/lib/core/errors';
import type { Db } from '@/lib/db/client';
import { modelNotAllowed, modelNotFound, modelNotServed, noProviderAvailable, unsupportedParameter } from '@/lib/errors/chat';
import type { ModelClient } from './client';
import { recordProbe } from './health';
import { begin, choose, currentProviders, clientOf, isHealthy, type Live, syncProviders, usable } from './pool';
import { type Preferences, preferred } from './preferences';
import { probe } from './prober';
import { log } from '@/lib/log';
import { inSpan } from '@/lib/observability/context';
import { failSpan, SpanKind, startSpan, tracer } from '@/lib/observability/tracing';
import type { Need } from '@/lib/chat/capabilities';
import type { Offer } from '@/lib/budgets/budgets';
import type { Prices } from './prices';
import { admittedNow, reachOf, type Tenant } from './tenancy';

/*
 * Routing (design §10): each completion goes to one of the healthy providers serving its model
 * (./pool.ts chooses), and on a failure before its first byte (connection error, timeout, 429, 5xx,
 * a reply that is not the protocol) to another: at most MAX_ATTEMPTS within
 * TRIAD_FAILOVER_DEADLINE_MS. Once a byte has gone to the client, never: the stream ends with its
 * error event. No provider in service for a model that providers serve: 503 no_provider_available.
 * Only providers that may serve the tenant count (./tenancy.ts, design §20): for an organization, a
 * model that only another organization's private nodes serve does not exist.
 */
export const MAX_ATTEMPTS = 3;
const NONE: readonly string[] = [];

/** Where an attempt goes: the model server's client, the model under the server's own name, and who serves it. */
export type Target = {
  client: ModelClient;
  model: string;
  /** `tunnel`: a node's agent, whose own usage figures are believed only up to a margin (design §14). */
  provider: { id: string; name: string; nodeId: number | null; prices: Prices; tunnel: boolean };
  /** The API surfaces beyond Chat Completions its server speaks natively: a request of one is passed through (design §16). */
  endpoints: readonly string[];
};

/**
 * How a failed attempt counts: tried elsewhere or not, and what it says of the provider. A server
 * that cannot be reached or sends nothing in time counts towards being taken out; one that answers
 * (a 5xx, a reply that is not the protocol) is alive: tried elsewhere, but left in service.
 */
function classify(e: unknown): { retry: boolean; kind: 'failure' | 'busy' | 'neutral'; retryAfterS?: number } {
  if (!(e instanceof ApiError)) return { retry: false, kind: 'neutral' };
  if (e.code === 'upstream_unreachable' || e.code === 'upstream_timeout') return { retry: true, kind: 'failure' };
  if (e.code === 'upstream_error') return { retry: true, kind: 'neutral' };
  if (e.code === 'upstream_rate_limited') return { retry: true, kind: 'busy', retryAfterS: Number(e.headers?.['Retry-After']) || 1 };
  if (e.code === 'model_not_found') return { retry: true, kind: 'neutral' };
  return { retry: false, kind: 'neutral' };
}

const probing = new Map<string, Promise<unknown>>();

/** Providers never probed yet (just added, or this process just started): probed now, once. */
async function probeUnknown(db: Db, all: Live[]): Promise<boolean> {
  const fresh = all.flatMap((l) => (l.record.enabled && !l.record.checkedAt && l.record.kind === 'http' ? [l.record] : []));
  if (!fresh.length) return false;
  await Promise.all(
    fresh.map((record) => {
      let p = probing.get(record.id);
      if (!p) {
        p = probe(record)
          .then((r) => recordProbe(db, record, r, Date.now()))
          .finally(() => probing.delete(record.id));
        probing.set(record.id, p);
      }
      return p;
    }),
  );
  await syncProviders(db);
  return true;
}

/** A provider as a budget sees it: its prices and, where its server said, how many tokens the model takes. */
const offerOf = (l: Live, model: string): Offer => ({
  prices: { prompt: l.record.pricePrompt, completion: l.record.priceCompletion },
  contextLength: l.record.modelInfo[l.served.get(model)!]?.context_length ?? null,
});

/** Whether a provider may serve what a request needs: it declared the capabilities, or declared none at all (it decides). */
const canServe = (l: Live, needs: Need[]) => !l.record.capabilities || needs.every((n) => l.record.capabilities!.includes(n.capability));

/**
 * Runs `attempt` on providers of `model` that may serve `tenant`, until one succeeds (its reply has
 * begun) or the attempts run out. `attempt` gets the target and `done`, to call when the completion is
 * over (it counts the provider's requests in flight); a failed attempt's `done` is called here.
 * Providers that declared they cannot do what the request `needs` are skipped; when none of the
 * model's can, 400 unsupported_parameter naming the field. Another organization's admitted node is
 * checked against the database before it is sent anything (a revocation holds from the next request).
 */
export async function routeCompletion<T>(
  db: Db,
  model: string,
  tenant: Tenant,
  signal: AbortSignal,
  attempt: (target: Target, done: () => void) => Promise<T>,
  options: {
    needs?: Need[];
    endpoint?: 'chat' | 'embeddings';
    before?: (offers: Offer[]) => Promise<void>;
    /** The request's routing preferences (or its key's), design §17. */
    preferences?: Preferences | null;
  } = {},
): Promise<{ reply: T; provider: string }> {
  const { needs = [], endpoint = 'chat' } = options;
  if (tenant.models && !tenant.models.includes(model)) throw modelNotAllowed(model);
  let all = currentProviders(db);
  if (!Array.isArray(all)) all = await all;
  const serves = (l: Live) => l.record.enabled && l.served.has(model) && reachOf(l.record, tenant) !== null;
  if (!all.some(serves) && (await probeUnknown(db, all))) all = await currentProviders(db);
  const c = config();
  if (!all.some(serves)) {
    // A provider never reached might serve it: say so rather than that the model does not exist.
    if (all.some((l) => l.record.enabled && !l.record.catalogueAt && reachOf(l.record, tenant) !== null))
      throw noProviderAvailable(model, c.TRIAD_PROVIDER_PROBE_S);
    throw modelNotFound(model);
  }

  // Providers that may not serve the tenant, or cannot serve what the request needs, count as tried already.
  const tried = new Set<string>();
  for (const l of all) if (reachOf(l.record, tenant) === null) tried.add(l.record.id);
  // An agent of the tunnel protocol's first version carries chat completions only.
  if (endpoint !== 'chat') {
    for (const l of all) if (l.record.kind === 'tunnel' && (l.record.tunnelVersion ?? 1) < 2) tried.add(l.record.id);
    if (all.every((l) => !serves(l) || tried.has(l.record.id)))
      throw unsupportedParameter(
        'model',
        `\`${model}\` is served here by partners' nodes only, whose agents carry chat completions, not ${endpoint} (an agent of tunnel protocol 2 does).`,
      );
  }
  if (needs.length) {
    const serving = all.filter(serves);
    for (const l of serving) if (!canServe(l, needs)) tried.add(l.record.id);
    if (serving.every((l) => tried.has(l.record.id))) {
      const need = needs.find((n) => serving.every((l) => !canServe(l, [n])))!;
      throw unsupportedParameter(
        need.param,
        `No provider of \`${model}\` can serve \`${need.param}\`: none of them declares ${need.capability}.`,
      );
    }
  }
  // Preferences narrow the providers and may order them; the rest count as tried.
  let order: Live[] | null = null;
  let attempts = MAX_ATTEMPTS;
  if (options.preferences) {
    const serving = all.filter((l) => serves(l) && !tried.has(l.record.id));
    const p = preferred(serving, options.preferences, (l) => l.recent, model);
    for (const l of serving) if (!p.left.includes(l)) tried.add(l.record.id);
    order = p.order;
    attempts = Math.min(attempts, p.attempts ?? MAX_ATTEMPTS);
  }
  if (options.before) await options.before(all.filter((l) => serves(l) && !tried.has(l.record.id)).map((l) => offerOf(l, model)));
  const deadline = Date.now() + c.TRIAD_FAILOVER_DEADLINE_MS;
  let last: unknown = null;
  for (let n = 0; n < attempts && Date.now() < deadline && !signal.aborted; n++) {
    const live = order ? (order.find((l) => !tried.has(l.record.id) && usable(l, model)) ?? null) : choose(all, model, tried);
    if (!live) break;
    tried.add(live.record.id);
    if (reachOf(live.record, tenant) === 'network' && !(await admittedNow(db, live.record.id))) {
      // Revoked since the pool's last reload (by another instance): private from now on here too, and not an attempt.
      if (live.record.node) live.record.node.admission = null;
      n--;
      continue;
    }
    const flight = begin(db, live);
    const target: Target = {
      client: clientOf(live),
      model: live.served.get(model)!,
      provider: {
        id: live.record.id,
        name: live.record.name,
        nodeId: live.record.nodeId,
        prices: { prompt: live.record.pricePrompt, completion: live.record.priceCompletion },
        tunnel: live.record.kind === 'tunnel',
      },
      endpoints: live.record.endpoints ?? NONE,
    };
    // Its CLIENT span (design §18), when traced: the parent the model server is sent as traceparent.
    const span = attemptSpan(live.record, target.model, n + 1);
    const end = span ? () => (span.setAttribute('triad.attempt.outcome', 'served'), span.end(), flight.end()) : flight.end;
    try {
      const reply = await (span ? inSpan(span, () => attempt(target, end)) : attempt(target, end));
      flight.ok();
      return { reply, provider: live.record.name };
    } catch (e) {
      if (span) {
        const code = e instanceof ApiError ? (e.code ?? String(e.status)) : 'internal_error';
        span.setAttribute('triad.attempt.outcome', code);
        failSpan(span, code, (e as Error).message);
      }
      flight.end();
      const verdict = classify(e);
      if (signal.aborted || !verdict.retry) throw e;
      flight.failed(verdict.kind, (e as Error).message, verdict.retryAfterS);
      log.info('provider attempt failed: trying another', { provider: live.record.name, model, error: (e as ApiError).code });
      last = e;
    }
  }
  if (!last && !all.some(serves)) throw modelNotFound(model); // its only nodes were just revoked
  // The servers of a model listed here said they have no such model: say what they said, not that it does not exist.
  if (last instanceof ApiError && last.code === 'model_not_found' && last.detail !== undefined)
    throw modelNotServed(model, endpoint, last.detail);
  throw last ?? noProviderAvailable(model, c.TRIAD_PROVIDER_PROBE_S);
}

/** The span of one attempt on a provider (design §18): where it went, under which model name, which try it was. */
function attemptSpan(record: Live['record'], serverModel: string, n: number) {
  const t = tracer();
  if (!t) return undefined;
  let address = record.kind === 'tunnel' ? `node:${record.node?.externalId ?? record.name}` : record.baseUrl;
  let port: number | undefined;
  if (record.kind === 'http') {
    try {
      const url = new URL(record.baseUrl);
      address = url.hostname;
      port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    } catch {
      // the base URL as stored
    }
  }
  return startSpan(t, `attempt ${record.name}`, SpanKind.CLIENT, {
    'server.address': address,
    'server.port': port,
    'gen_ai.provider.name': record.name,
    'gen_ai.request.model': serverModel,
    'triad.provider.id': record.id,
    'triad.provider.kind': record.kind,
    'triad.attempt': n,
  });
}

/**
 * A model as the model list shows it: `owned_by` as its servers list it when they all agree, else
 * `triad`; its context length where its servers say it (the smallest of theirs: what a client can
 * count on whichever serves it); how many providers serve it and how many of them are in service (none
 * for the built-in triad-guide, which is always there).
 */
export type ProviderModel = {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  context_length?: number;
  providers?: { total: number; healthy: number };
};

/** Every model served to `tenant` (and its key may use), once: triad-guide first, then the providers' models by name. */
export async function listModels(db: Db, tenant: Tenant): Promise<ProviderModel[]> {
  let all = await currentProviders(db);
  if (await probeUnknown(db, all)) all = await currentProviders(db);
  const models = new Map<string, ProviderModel>();
  const builtin: ProviderModel[] = [];
  const allowed = (id: string) => !tenant.models || tenant.models.includes(id);
  for (const l of all) {
    if (!l.record.enabled || reachOf(l.record, tenant) === null) continue;
    if (l.record.kind === 'guide') {
      for (const id of l.served.keys())
        builtin.push({ id, object: 'model', created: Math.floor(l.record.createdAt.getTime() / 1000), owned_by: 'triad' });
      continue;
    }
    for (const [id, upstream] of l.served) {
      const facts = l.record.modelInfo[upstream] ?? {};
      let m = models.get(id);
      if (!m) {
        m = {
          id,
          object: 'model',
          created: Math.floor(l.record.createdAt.getTime() / 1000),
          owned_by: facts.owned_by ?? 'triad',
          providers: { total: 0, healthy: 0 },
        };
        models.set(id, m);
      } else if (m.owned_by !== facts.owned_by) m.owned_by = 'triad';
      if (facts.context_length) m.context_length = Math.min(m.context_length ?? Infinity, facts.context_length);
      m.providers!.total++;
      if (isHealthy(l)) m.providers!.healthy++;
    }
  }
  // A key with an allow-list sees its models only (design §17).
  return [...builtin, ...[...models.values()].sort((a, b) => a.id.localeCompare(b.id))].filter((m) => allowed(m.id));
}
