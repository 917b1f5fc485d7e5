import { config } from '@/lib/config';
import { shared } from '@/lib/core/runtime';
import type { Db } from '@/lib/db/client';
import { log } from '@/lib/log';
import { onShutdown } from '@/lib/shutdown';
import { recordAttempt } from './traffic';
import { addMetricsSection, esc } from '@/lib/metrics';
import { exposedModels } from './catalogue';
import type { ModelClient } from './client';
import { GUIDE_CREATED, GUIDE_MODEL, guideEngine } from './guide';
import { markDown } from './health';
import { httpModelClient } from './http-client';
import { getProviderById, listProviders, providerApiKey, type ProviderRecord } from './store';

/*
 * The providers as this process sees them (design §10): the database's rows, each with its client
 * (kept-alive connections), what it serves, and this process's own counts: requests in flight,
 * failures in a row, a cool-down after a 429. Reloaded from the database every SYNC_MS while requests
 * come (on a timer of its own: see currentProviders) and after every change made here; the prober's
 * verdicts arrive the same way on every instance. Beside them, the built-in provider of kind `guide`,
 * which serves triad-guide (./guide.ts) and is always in service.
 * Kinds: `http` (./http-client.ts), `tunnel` (a node's agent, reached the way lib/tunnel/ gives,
 * defineWay), `guide`.
 */
export const FAILURES_DOWN = 3;
export const SYNC_MS = 2000;
/** The view's own reloads stop after this long without a request (an idle server reads nothing). */
export const QUIET_MS = 60_000;
/** A tunnel row not refreshed for this long is taken out (the instance holding it died): lib/tunnel/, ./prober.ts. */
export const STALE_MS = 30_000;

/** The built-in provider: a record like the database's, of kind `guide`. */
export type BuiltinRecord = Omit<ProviderRecord, 'kind'> & { kind: 'guide' };
export type Live = {
  record: ProviderRecord | BuiltinRecord;
  /** What the client depends on (server, key, timeout), worked out at each reload. */
  clientKey: string;
  /** exposed model id → the server's own id */
  served: Map<string, string>;
  inFlight: number;
  failures: number;
  /** Taken out here after failed requests, at this time, until a probe after it succeeds. */
  downAt: number | null;
  /** After a 429: skipped until then. */
  coolUntil: number;
  /** Smooth weighted round robin's running score. */
  current: number;
  counts: { ok: number; failed: number; firstByteSum: number };
  /** Its recent history on this instance, for routing preferences (./preferences.ts). */
  recent: Recent;
};

/** What a provider has shown on this instance lately (exponentially weighted): ms to a first byte, completion tokens a second. */
export type Recent = { firstByteMs: number | null; tokensPerS: number | null };

/** How much a new observation weighs in a provider's recent figures (exponentially weighted). */
const RECENT_WEIGHT = 0.2;
const blend = (old: number | null, value: number) => (old === null ? value : old + RECENT_WEIGHT * (value - old));

/** A completion's pace on a provider, once it is over: completion tokens over the seconds after its first byte. */
export function observeThroughput(providerId: string, tokens: number, seconds: number): void {
  const live = pool().byId.get(providerId);
  if (live && tokens > 0 && seconds > 0.001) live.recent.tokensPerS = blend(live.recent.tokensPerS, tokens / seconds);
}

type Pool = {
  byId: Map<string, Live>;
  list: Live[];
  synced: Promise<void> | null;
  syncedAt: number;
  /** The last request's time and database, and the timer that reloads the view while requests come. */
  usedAt: number;
  db: Db | null;
  timer: NodeJS.Timeout | null;
  /** The last read in the queue (inTurn), and a reload queued there that has not started yet. */
  tail: Promise<void>;
  reloadQueued: Promise<void> | null;
};
declare module '@/lib/core/runtime' {
  interface Runtime {
    providerPool: Pool;
  }
}

export function pool(): Pool {
  return shared('providerPool', () => {
    addMetricsSection('providers', renderMetrics);
    return {
      byId: new Map(),
      list: [],
      synced: null,
      syncedAt: 0,
      usedAt: 0,
      db: null,
      timer: null,
      tail: Promise.resolve(),
      reloadQueued: null,
    };
  });
}

const clientKey = (r: Live['record']) => `${r.baseUrl}\0${r.apiKeyEnc ?? ''}\0${r.timeoutMs}`;

/**
 * How this copy of the code reaches providers of kind `tunnel` (lib/tunnel/way.ts, given by the
 * pipeline): the client, what it depends on beyond the row (`key`), and whether this instance can
 * reach the node now. Without one, tunnels are out of this copy's reach.
 */
export type Way = { key(r: ProviderRecord): string; client(r: ProviderRecord): ModelClient; reachable(r: ProviderRecord): boolean };
const ways = new Map<'tunnel', Way>();
export const defineWay = (kind: 'tunnel', way: Way) => void ways.set(kind, way);

let guide: ModelClient | undefined;
const guideClient = () => (guide ??= guideEngine({ delayMs: config().TRIAD_GUIDE_DELAY_MS }));

const GUIDE_RECORD: BuiltinRecord = {
  id: 'prv_builtin_guide',
  name: GUIDE_MODEL,
  kind: 'guide',
  baseUrl: `builtin://${GUIDE_MODEL}`,
  heldBy: null,
  tunnelVersion: null,
  apiKeyEnc: null,
  models: null,
  renames: {},
  capabilities: null, // it decides: it refuses what it cannot do, naming the field
  endpoints: null,
  weight: 1,
  timeoutMs: 60_000,
  pricePrompt: null,
  priceCompletion: null,
  enabled: true,
  nodeId: null,
  state: 'up',
  lastError: null,
  latencyMs: null,
  failedProbes: 0,
  checkedAt: GUIDE_CREATED,
  catalogue: [GUIDE_MODEL],
  catalogueAt: GUIDE_CREATED,
  modelInfo: {},
  createdAt: GUIDE_CREATED,
  updatedAt: GUIDE_CREATED,
  node: null,
};
/**
 * Clients are this copy of the code's own, not the runtime's: the pool is shared by every copy of the
 * code in the process (the server's bundle, Next's), and a client's errors must be the ApiError of
 * the copy that classifies them.
 */
const clients = new WeakMap<Live, { key: string; client: ModelClient }>();

export function clientOf(live: Live): ModelClient {
  const r = live.record;
  if (r.kind === 'guide') return guideClient();
  const way = r.kind === 'tunnel' ? ways.get('tunnel') : undefined;
  const key = way ? `${live.clientKey}\0${way.key(r)}` : live.clientKey;
  let e = clients.get(live);
  if (!e || e.key !== key) {
    const client = way ? way.client(r) : httpModelClient({ baseUrl: r.baseUrl, apiKey: providerApiKey(r), timeoutMs: r.timeoutMs });
    e = { key, client };
    clients.set(live, e);
  }
  return e.client;
}

/** A provider's entry for `record`: what this process counted for it (in flight, failures) is kept from `old`. */
function liveOf(record: Live['record'], old: Live | undefined): Live {
  const served = exposedModels(record.catalogue, record.models, record.renames);
  if (record.kind !== 'guide') served.delete(GUIDE_MODEL); // the built-in's name is its own
  let live: Live;
  const key = clientKey(record);
  if (old && old.clientKey === key) live = Object.assign(old, { record, served });
  else {
    live = {
      record,
      clientKey: key,
      served,
      inFlight: 0, // attempts under way on the old server end on the old object
      failures: 0,
      downAt: null,
      coolUntil: 0,
      current: 0,
      counts: old?.counts ?? { ok: 0, failed: 0, firstByteSum: 0 },
      recent: old?.recent ?? { firstByteMs: null, tokensPerS: null },
    };
  }
  // A successful probe after this process took it out brings it back.
  if (live.downAt !== null && record.state === 'up' && record.checkedAt && record.checkedAt.getTime() > live.downAt) {
    live.downAt = null;
    live.failures = 0;
  }
  return live;
}

/**
 * Reads and their updates of the view take turns (one queue), so that what was read later is applied
 * later: a reload that read the table before a change cannot undo the change's own refresh.
 */
function inTurn(p: Pool, work: () => Promise<void>): Promise<void> {
  const run = p.tail.then(work);
  p.tail = run.catch(() => {});
  return run;
}

/**
 * Reads every provider again (a reload that starts after this call; while one waits its turn, every
 * caller meanwhile shares it): after a change that may concern many (settings, admissions), on the
 * prober's ticks and every SYNC_MS while requests come. What this process counted for each is kept.
 */
export function syncProviders(db: Db): Promise<void> {
  const p = pool();
  if (p.reloadQueued) return p.reloadQueued;
  const run = inTurn(p, async () => {
    p.reloadQueued = null;
    const rows: Live['record'][] = [GUIDE_RECORD, ...(await listProviders(db))];
    const next = new Map<string, Live>();
    for (const record of rows) next.set(record.id, liveOf(record, p.byId.get(record.id)));
    p.byId = next;
    p.list = [...next.values()];
    p.syncedAt = Date.now();
  });
  p.reloadQueued = run;
  return run;
}

/**
 * Reads one provider again after a change to it alone (a node's tunnel opened or closed, its models):
 * one row, whatever the fleet's size — a thousand agents reconnecting after a restart cost a thousand
 * small reads, not a reload of every provider each.
 */
export function refreshProvider(db: Db, id: string): Promise<void> {
  const p = pool();
  return inTurn(p, async () => {
    const record = await getProviderById(db, id);
    if (record) p.byId.set(id, liveOf(record, p.byId.get(id)));
    else if (!p.byId.delete(id)) return;
    p.list = [...p.byId.values()];
  });
}

/**
 * The providers: loaded once (awaited), then reloaded every SYNC_MS by a timer of the view's own, which
 * requests keep going and which stops after QUIET_MS without one. Not by the request that finds the view
 * due: on the embedded database a reload runs on the server's thread (about 3 ms), and would have held
 * that request — the first after every two quiet seconds, as a client sending a message now and then
 * sends them all (docs/benchmarks.md). A request that finds the view older than twice SYNC_MS (the timer
 * stopped, or held up) reloads it as before, in the background. On the request path: no promise once loaded.
 */
export function currentProviders(db: Db): Live[] | Promise<Live[]> {
  const p = pool();
  const now = Date.now();
  p.usedAt = now;
  p.db = db;
  p.timer ??= keepReloading(p);
  if (!p.syncedAt) {
    p.synced ??= syncProviders(db).finally(() => (p.synced = null));
    return p.synced.then(() => p.list);
  }
  if (now - p.syncedAt > 2 * SYNC_MS) reload(p);
  return p.list;
}

function keepReloading(p: Pool): NodeJS.Timeout {
  const stop = () => {
    clearInterval(p.timer!);
    p.timer = null;
  };
  onShutdown('provider-pool', stop); // before the database closes
  return setInterval(() => (Date.now() - p.usedAt > QUIET_MS ? stop() : reload(p)), SYNC_MS).unref();
}

/** A reload in the background, from the database the last request named. */
function reload(p: Pool) {
  p.syncedAt = Date.now();
  void syncProviders(p.db!).catch((e: Error) => log.warn('providers not reloaded', { error: e.message }));
}

/** In service: enabled, not taken out; a tunnel only while its agent is connected (up). */
export const isHealthy = (l: Live) =>
  l.record.enabled && (l.record.kind === 'tunnel' ? l.record.state === 'up' : l.record.state !== 'down') && l.downAt === null;
/**
 * Whether this instance can send it requests: a tunnel when it holds it, or when another instance
 * does and refreshed its row lately (requests are forwarded there).
 */
const reachable = (l: Live) => l.record.kind !== 'tunnel' || !!ways.get('tunnel')?.reachable(l.record);

/**
 * The provider for the next attempt at `model`, among the healthy ones serving it and not tried yet:
 * smooth weighted round robin (weights split traffic exactly), skipping any that has more requests in
 * flight for its weight than the least loaded has plus one (so that a slow or stuck provider does not
 * collect requests while others have room).
 */
/** Whether a provider can take an attempt at `model` now: in service, not cooling down after a 429, reachable from here. */
export const usable = (l: Live, model: string, now = Date.now()) =>
  isHealthy(l) && l.coolUntil <= now && l.served.has(model) && reachable(l);

export function choose(all: Live[], model: string, tried: ReadonlySet<string>, now = Date.now()): Live | null {
  const ready: Live[] = [];
  let least = Infinity;
  for (const l of all) {
    if (tried.has(l.record.id) || !usable(l, model, now)) continue;
    ready.push(l);
    least = Math.min(least, l.inFlight / l.record.weight);
  }
  if (ready.length <= 1) return ready[0] ?? null;
  let total = 0;
  let pick: Live | null = null;
  for (const l of ready) {
    if (l.inFlight / l.record.weight > least + 1) continue;
    l.current += l.record.weight;
    total += l.record.weight;
    if (!pick || l.current > pick.current) pick = l;
  }
  pick!.current -= total;
  return pick;
}

/** One attempt on a provider: counted in flight until `end()`, and its outcome counted for health. */
export function begin(db: Db, live: Live) {
  live.inFlight++;
  const started = performance.now();
  let ended = false;
  return {
    /** The first byte came: the provider works. */
    ok() {
      live.failures = 0;
      live.counts.ok++;
      if (live.record.kind !== 'guide') recordAttempt(db, live.record.id, true);
      const ms = performance.now() - started;
      live.counts.firstByteSum += ms / 1000;
      live.recent.firstByteMs = blend(live.recent.firstByteMs, ms);
    },
    /** It failed before the first byte: `busy` (a 429) sets it aside for `retryAfterS`; a failure counts towards taking it out. */
    failed(kind: 'failure' | 'busy' | 'neutral', detail: string, retryAfterS = 1) {
      live.counts.failed++;
      if (live.record.kind !== 'guide') recordAttempt(db, live.record.id, false);
      if (kind === 'busy') live.coolUntil = Date.now() + retryAfterS * 1000;
      if (kind !== 'failure') return;
      const r = live.record;
      if (++live.failures >= FAILURES_DOWN && live.downAt === null && r.kind !== 'guide') {
        live.downAt = Date.now();
        log.warn('provider taken out', { provider: r.name, failures: live.failures, error: detail });
        void markDown(db, r, `${live.failures} requests failed: ${detail}`, live.downAt).catch((e: Error) =>
          log.warn('provider state not stored', { provider: live.record.name, error: e.message }),
        );
      }
    },
    end() {
      if (ended) return;
      ended = true;
      live.inFlight--;
    },
  };
}

function renderMetrics(): string[] {
  const all = pool().list;
  const out = [
    '# HELP triad_provider_up Whether a provider is in service (1), out (0) or not probed yet (-1).',
    '# TYPE triad_provider_up gauge',
    ...all.map((l) => `triad_provider_up{provider="${esc(l.record.name)}"} ${isHealthy(l) ? (l.record.state === 'up' ? 1 : -1) : 0}`),
    '# HELP triad_provider_in_flight Completions a provider is serving for this instance now.',
    '# TYPE triad_provider_in_flight gauge',
    ...all.map((l) => `triad_provider_in_flight{provider="${esc(l.record.name)}"} ${l.inFlight}`),
    '# HELP triad_provider_requests_total Attempts on a provider, by result (ok: its first byte came; failed: tried elsewhere or refused).',
    '# TYPE triad_provider_requests_total counter',
  ];
  for (const l of all) {
    out.push(`triad_provider_requests_total{provider="${esc(l.record.name)}",result="ok"} ${l.counts.ok}`);
    out.push(`triad_provider_requests_total{provider="${esc(l.record.name)}",result="failed"} ${l.counts.failed}`);
  }
  out.push('# HELP triad_provider_first_byte_seconds Time to a provider’s first byte.', '# TYPE triad_provider_first_byte_seconds summary');
  for (const l of all) {
    out.push(`triad_provider_first_byte_seconds_sum{provider="${esc(l.record.name)}"} ${l.counts.firstByteSum}`);
    out.push(`triad_provider_first_byte_seconds_count{provider="${esc(l.record.name)}"} ${l.counts.ok}`);
  }
  return out;
}
