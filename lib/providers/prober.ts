import { config } from '@/lib/config';
import { storableText } from '@/lib/core/text';
import type { Database } from '@/lib/db/client';
import { log } from '@/lib/log';
import { addMetricsSection } from '@/lib/metrics';
import { onShutdown } from '@/lib/shutdown';
import { type ProbeResult, recordProbe, markDown } from './health';
import { getText } from './http-client';
import { STALE_MS, syncProviders } from './pool';
import { listProviders, providerApiKey, type ProviderRecord } from './store';
import type { ModelFacts } from '@/lib/db/schema';

/*
 * The prober (design §10): every TRIAD_PROVIDER_PROBE_S, `GET {base}/models` on each enabled
 * provider (5 s limit). Its result is the provider's health and its model catalogue (a failed probe
 * keeps the last list). On PostgreSQL one instance of a cluster probes: the holder of an advisory
 * lock taken on a connection of its own; when that instance dies its connection closes, the lock is
 * free, and another instance takes it at its next tick. The embedded database has one process.
 */
const PROBE_TIMEOUT_MS = 5000;
/** Arbitrary constant naming the prober's leadership among PostgreSQL advisory locks. */
const PROBER_LOCK_ID = 727_166_003;

/** One probe of one provider, now (`timeoutMs`: its time limit). */
export async function probe(p: Pick<ProviderRecord, 'baseUrl' | 'apiKeyEnc'>, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const key = providerApiKey(p as ProviderRecord);
    const { status, text } = await getText(`${p.baseUrl}/models`, key ? { authorization: `Bearer ${key}` } : {}, timeoutMs);
    if (status < 200 || status >= 300) return { ok: false, latencyMs: latency(), error: `GET /models answered ${status}` };
    const body = JSON.parse(text) as { data?: Record<string, unknown>[] };
    if (!Array.isArray(body?.data)) return { ok: false, latencyMs: latency(), error: 'GET /models did not answer an OpenAI model list' };
    const models: string[] = [];
    // (No prototype: a model may be called `constructor`.)
    const facts: Record<string, ModelFacts> = Object.create(null) as Record<string, ModelFacts>;
    for (const m of body.data) {
      const id = m?.id;
      // (Ids Triad cannot store — a NUL, half a surrogate pair: lib/core/text.ts — left out, as are overlong ones.)
      if (typeof id !== 'string' || id.length === 0 || id.length > 200 || id in facts || !storableText(id)) continue;
      if (models.push(id) > 1000) break;
      facts[id] = factsOf(m);
    }
    return { ok: true, latencyMs: latency(), models: models.slice(0, 1000), facts };
  } catch (e) {
    const err = e as Error & { code?: string; cause?: { code?: string } };
    const error =
      err.name === 'TimeoutError'
        ? `no answer in ${timeoutMs} ms`
        : err instanceof SyntaxError
          ? 'GET /models did not answer JSON'
          : (err.code ?? err.cause?.code ?? err.message);
    return { ok: false, latencyMs: latency(), error };
  }
}

/**
 * What a model list's entry says beyond the id, where it says it: the context length as the servers
 * people run spell it (OpenRouter and LiteLLM `context_length`, vLLM `max_model_len`, LM Studio
 * `max_context_length`, llama.cpp `meta.n_ctx_train`), and `owned_by`.
 */
function factsOf(m: Record<string, unknown>): ModelFacts {
  const meta = (m.meta && typeof m.meta === 'object' ? m.meta : {}) as Record<string, unknown>;
  const length = [m.context_length, m.max_model_len, m.max_context_length, m.context_window, meta.n_ctx_train].find(
    (v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 1e9,
  );
  const owner =
    typeof m.owned_by === 'string' && m.owned_by.length > 0 && m.owned_by.length <= 100 && storableText(m.owned_by)
      ? m.owned_by
      : undefined;
  return { ...(length ? { context_length: length } : {}), ...(owner ? { owned_by: owner } : {}) };
}

/** Probes every provider once (disabled ones are taken out), then reloads this process's view. */
export async function probeAll(db: Database['db']): Promise<void> {
  const all = await listProviders(db);
  await Promise.all(
    all.map(async (p) => {
      if (p.kind === 'tunnel') {
        // Its instance refreshes it while the tunnel is open; not refreshed, that instance is gone. Stale is
        // asked again as it is taken out: an agent that connected since the list was read stays up.
        const staleBefore = new Date(Date.now() - STALE_MS);
        const stale = !p.checkedAt || p.checkedAt < staleBefore;
        if (p.state === 'down') return;
        if (!p.enabled) await markDown(db, p, 'disabled', Date.now());
        else if (stale) await markDown(db, p, 'the tunnel is gone', Date.now(), staleBefore);
        return;
      }
      if (!p.enabled) {
        if (p.state !== 'down') await markDown(db, p, 'disabled', Date.now());
        return;
      }
      const result = await probe(p);
      const changed = await recordProbe(db, p, result, Date.now());
      if (changed) log.info(`provider ${changed}`, { provider: p.name, ...(result.ok ? {} : { error: result.error }) });
    }),
  );
  await syncProviders(db);
}

type Leadership = { holds(): Promise<boolean>; release(): Promise<void> };

/** Always the leader: the embedded database has one process. */
const sole: Leadership = { holds: async () => true, release: async () => {} };

/** The advisory lock on a connection of its own; lost with the connection, tried again each tick. */
function advisoryLeadership(url: string): Leadership {
  let client: import('pg').Client | null = null;
  let held = false;
  const drop = () => {
    held = false;
    const c = client;
    client = null;
    c?.end().catch(() => {});
  };
  return {
    async holds() {
      if (held && client) return true;
      try {
        const { Client } = await import('pg');
        if (!client) {
          const c = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
          c.on('error', () => {
            if (held) log.warn('prober leadership lost (its database connection failed)');
            drop();
          });
          c.on('end', () => drop());
          await c.connect();
          client = c;
        }
        const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1) as ok', [PROBER_LOCK_ID]);
        held = rows[0]?.ok === true;
        if (held) log.info('this instance probes the providers');
        return held;
      } catch {
        drop();
        return false;
      }
    },
    async release() {
      const c = client;
      held = false;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

/** Starts the prober: one probe at once at start, then every TRIAD_PROVIDER_PROBE_S. */
export function startProber(database: Database): { isLeader(): boolean; tick(): Promise<void> } {
  const c = config();
  const leadership = database.driver === 'postgres' ? advisoryLeadership(c.DATABASE_URL!) : sole;
  let leader = false;
  let running: Promise<void> | null = null;
  const tick = () =>
    (running ??= (async () => {
      try {
        leader = await leadership.holds();
        if (leader) await probeAll(database.db);
        else await syncProviders(database.db);
      } catch (e) {
        log.warn('provider probe failed', { error: (e as Error).message });
      } finally {
        running = null;
      }
    })());
  addMetricsSection('prober', () => [
    '# HELP triad_provider_prober_leader Whether this instance probes the providers (one instance of a cluster does).',
    '# TYPE triad_provider_prober_leader gauge',
    `triad_provider_prober_leader ${leader ? 1 : 0}`,
  ]);
  void tick();
  const timer = setInterval(() => void tick(), c.TRIAD_PROVIDER_PROBE_S * 1000);
  timer.unref();
  onShutdown('prober', async () => {
    clearInterval(timer);
    await running;
    await leadership.release();
  });
  return { isLeader: () => leader, tick };
}
