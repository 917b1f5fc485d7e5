import type { Db } from '@/lib/db/client';
import { markDown, recordProbe } from './health';
import { syncProviders } from './pool';
import { probe } from './prober';
import type { ProviderCreate, ProviderUpdate } from './schema';
import { createProvider, getProvider, listProviders, providerView, removeProvider, updateProvider } from './store';
import { recentTraffic } from './traffic';

/*
 * What an administrator does with providers, for the admin API and the CLI alike. Each change is
 * seen at once by this process (the others reload within seconds).
 */
/** A new provider is probed at once (at most 5 s), so that it serves as soon as it is added, and says how it is. */
export async function addProvider(db: Db, input: ProviderCreate) {
  const p = await createProvider(db, input);
  if (p.enabled) await recordProbe(db, p, await probe(p), Date.now());
  await syncProviders(db);
  return providerView(await getProvider(db, p.name));
}

export async function changeProvider(db: Db, name: string, patch: ProviderUpdate) {
  const before = await getProvider(db, name);
  // Unlinked from its node, or disabled, while in service: the node goes down with it.
  if (before.state === 'up' && ((patch.node !== undefined && before.node) || patch.enabled === false)) {
    await markDown(db, before, patch.enabled === false ? 'disabled' : 'unlinked', Date.now());
  }
  let p = await updateProvider(db, name, patch);
  // Another server or key, or back in service: probed at once, as a new one is.
  if (p.enabled && (patch.base_url !== undefined || patch.api_key !== undefined || patch.enabled === true)) {
    await recordProbe(db, p, await probe(p), Date.now());
    p = await getProvider(db, p.name);
  }
  await syncProviders(db);
  return providerView(p);
}

export async function deleteProvider(db: Db, name: string) {
  const p = await getProvider(db, name);
  if (p.state === 'up') await markDown(db, p, 'removed', Date.now());
  await removeProvider(db, name);
  await syncProviders(db);
  return { removed: true, name };
}

/** Every provider, with its share of the last 24 hours' attempts and its error rate. */
export async function showProviders(db: Db) {
  const [list, traffic] = await Promise.all([listProviders(db), recentTraffic(db, TRAFFIC_HOURS)]);
  const all = [...traffic.values()].reduce((n, t) => n + t.ok + t.failed, 0);
  return list.map((p) => {
    const t = traffic.get(p.id) ?? { ok: 0, failed: 0 };
    const requests = t.ok + t.failed;
    return {
      ...providerView(p),
      traffic: {
        hours: TRAFFIC_HOURS,
        requests,
        failed: t.failed,
        share: all ? requests / all : 0,
        error_rate: requests ? t.failed / requests : null,
      },
    };
  });
}
const TRAFFIC_HOURS = 24;

export async function showProvider(db: Db, name: string) {
  return providerView(await getProvider(db, name));
}

/** Probes a provider now and stores the result (its state and models), as the prober would. */
export async function testProvider(db: Db, name: string) {
  const p = await getProvider(db, name);
  const r = await probe(p);
  await recordProbe(db, p, r, Date.now());
  await syncProviders(db);
  return { ok: r.ok, latency_ms: r.latencyMs, models: r.ok ? r.models : [], error: r.ok ? null : r.error };
}

/** What the audit log keeps of a provider's settings: everything but its API key (only whether one was set or removed). */
export function providerDetail(fields: Record<string, unknown>) {
  const { api_key, ...rest } = fields;
  return { ...rest, ...(api_key !== undefined ? { api_key: api_key === null ? 'removed' : 'set' } : {}) };
}
