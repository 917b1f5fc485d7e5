import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createPartner } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { registerNode } from '@/lib/stats/nodes';
import { flushEarnings } from '@/lib/stats/earnings';
import { wireStatistics } from '@/lib/stats/subscriptions';
import { publish } from './events';
import { markDown, recordAlive, recordProbe, refreshAlive } from './health';
import { createProvider, getProvider } from './store';

describe.each(engines)('provider health and earnings, through the events statistics subscribe to (%s)', (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    wireStatistics();
    ({ database: d, cleanup } = await open());
  });
  afterAll(() => cleanup());

  const linked = async (name: string) => {
    const org = await createOrganization(d.db, { name });
    const partner = await createPartner(d.db, { orgId: org.id, name });
    const { node } = await registerNode(d.db, { partnerId: partner.id, externalId: `${name}-node` });
    await createProvider(d.db, {
      name,
      base_url: 'http://127.0.0.1:9/v1',
      weight: 1,
      timeout_ms: 1000,
      enabled: true,
      price_per_1k: '0.0025',
      node: { partner_id: partner.id, partner_node_id: `${name}-node` },
    });
    return { provider: await getProvider(d.db, name), node };
  };
  const events = async (nodeId: number) =>
    (
      await d.db.execute<{ type: string; event_id: string }>(
        sql`select type, event_id from node_events where node_id = ${nodeId} order by seq`,
      )
    ).rows;

  it('up on a successful probe (connect), heartbeats while up, down after two failed probes (disconnect); each change once', async () => {
    const { provider, node } = await linked('probed');
    const ok = { ok: true as const, latencyMs: 3, models: ['a', 'b'] };
    const fail = { ok: false as const, latencyMs: 5, error: 'ECONNREFUSED' };
    expect(await recordProbe(d.db, provider, ok, 1_000_000)).toBe('up');
    expect(await recordProbe(d.db, provider, ok, 1_020_000)).toBeNull();
    expect(await recordProbe(d.db, provider, fail, 1_040_000)).toBeNull(); // one failed probe: still up
    expect((await getProvider(d.db, 'probed')).catalogue).toEqual(['a', 'b']);
    expect(await recordProbe(d.db, provider, fail, 1_060_000)).toBe('down');
    expect(await recordProbe(d.db, provider, fail, 1_080_000)).toBeNull();
    const after = await getProvider(d.db, 'probed');
    expect(after).toMatchObject({ state: 'down', lastError: 'ECONNREFUSED', catalogue: ['a', 'b'] }); // the last list is kept
    expect((await events(node.id)).map((e) => e.type)).toEqual(['connect', 'heartbeat', 'disconnect']);
    // Told twice (two leaders, say): counted once.
    expect(await markDown(d.db, provider, 'again', 1_090_000)).toBe(false);
    expect(await recordProbe(d.db, provider, ok, 1_100_000)).toBe('up');
    expect(await markDown(d.db, provider, 'requests failed', 1_110_000)).toBe(true);
    expect(await markDown(d.db, provider, 'requests failed', 1_110_000)).toBe(false);
    expect((await events(node.id)).map((e) => e.type)).toEqual(['connect', 'heartbeat', 'disconnect', 'connect', 'disconnect']);
  });

  it("taken out with an agent's close reason PostgreSQL could not store (a NUL): still taken out, its node told disconnect", async () => {
    const { provider, node } = await linked('odd-reason');
    expect(await recordProbe(d.db, provider, { ok: true, latencyMs: 1, models: ['a'] }, 2_000_000)).toBe('up');
    expect(await markDown(d.db, provider, 'tunnel closed: bye\u0000now', 2_010_000)).toBe(true);
    expect(await getProvider(d.db, 'odd-reason')).toMatchObject({ state: 'down', lastError: 'tunnel closed: bye\ufffdnow' });
    expect((await events(node.id)).map((e) => e.type)).toEqual(['connect', 'disconnect']);
  });

  it('a tunnel not refreshed is taken out, but not from an older read: an agent that connected since stays up', async () => {
    const { provider: read } = await linked('raced'); // as the prober read it: never checked
    const now = Date.now();
    const staleBefore = new Date(now - 30_000);
    // Its agent connects after that read: up, checked now.
    expect(await recordProbe(d.db, read, { ok: true, latencyMs: 0, models: ['m'] }, now)).toBe('up');
    expect(await markDown(d.db, read, 'the tunnel is gone', now, staleBefore)).toBe(false);
    expect((await getProvider(d.db, 'raced')).state).toBe('up');
    // Not refreshed for longer than that: taken out.
    const later = now + 60_000;
    expect(await markDown(d.db, await getProvider(d.db, 'raced'), 'the tunnel is gone', later, new Date(later - 30_000))).toBe(true);
    expect(await getProvider(d.db, 'raced')).toMatchObject({ state: 'down', lastError: 'the tunnel is gone' });
  });

  it("tunnels' heartbeat, all in one: each enabled provider up with its agent's models, its node told heartbeat or connect", async () => {
    const up = await linked('alive-up');
    const down = await linked('alive-down');
    const off = await linked('alive-off');
    const at = 2_000_000;
    expect(await recordProbe(d.db, up.provider, { ok: true, latencyMs: 0, models: ['m'] }, at - 60_000)).toBe('up');
    await d.db.execute(sql`update providers set enabled = false where id = ${off.provider.id}`);
    await recordAlive(
      d.db,
      [
        { id: up.provider.id, models: ['m', 'n'] },
        { id: down.provider.id, models: ['k'] },
        { id: off.provider.id, models: ['x'] },
        { id: 'prv_gone', models: [] },
      ],
      at,
    );
    expect(await getProvider(d.db, 'alive-up')).toMatchObject({ state: 'up', catalogue: ['m', 'n'], checkedAt: new Date(at) });
    expect(await getProvider(d.db, 'alive-down')).toMatchObject({ state: 'up', catalogue: ['k'], failedProbes: 0, lastError: null });
    expect(await getProvider(d.db, 'alive-off')).toMatchObject({ state: 'unknown', catalogue: [], checkedAt: null });
    expect((await events(up.node.id)).map((e) => e.type)).toEqual(['connect', 'heartbeat']);
    expect(await events(down.node.id)).toEqual([{ type: 'connect', event_id: `provider:${down.provider.id}:connect:${at}` }]);
    expect(await events(off.node.id)).toEqual([]);
    // The same minute told again (two instances, say): counted once.
    await recordAlive(d.db, [{ id: up.provider.id, models: ['m', 'n'] }], at + 1);
    expect((await events(up.node.id)).map((e) => e.type)).toEqual(['connect', 'heartbeat']);
  });

  it('between heartbeats, held tunnels up are marked checked; one taken out meanwhile comes back at once, not one disabled', async () => {
    const up = await linked('held-up');
    const out = await linked('held-out');
    const off = await linked('held-off');
    const at = 4_000_000;
    for (const p of [up, out, off]) await recordProbe(d.db, p.provider, { ok: true, latencyMs: 0, models: ['m'] }, at - 20_000);
    // Taken out by the prober while the holder could not refresh it; the other disabled (and taken out).
    await markDown(d.db, out.provider, 'the tunnel is gone', at - 5_000);
    await d.db.execute(sql`update providers set enabled = false where id = ${off.provider.id}`);
    await markDown(d.db, off.provider, 'disabled', at - 5_000);
    const held = [up, out, off].map((p) => ({ id: p.provider.id, models: ['m'] }));
    expect(await refreshAlive(d.db, held, at)).toEqual([out.provider.id]);
    expect(await getProvider(d.db, 'held-up')).toMatchObject({ state: 'up', checkedAt: new Date(at) });
    expect(await getProvider(d.db, 'held-out')).toMatchObject({ state: 'up', checkedAt: new Date(at), lastError: null });
    expect(await getProvider(d.db, 'held-off')).toMatchObject({ state: 'down', checkedAt: new Date(at - 20_000) });
    expect((await events(up.node.id)).map((e) => e.type)).toEqual(['connect']);
    expect((await events(out.node.id)).map((e) => e.type)).toEqual(['connect', 'disconnect', 'connect']);
    // All up now: only checked, nothing told.
    expect(await refreshAlive(d.db, held.slice(0, 2), at + 10_000)).toEqual([]);
    expect((await events(out.node.id)).map((e) => e.type)).toEqual(['connect', 'disconnect', 'connect']);
  });

  it("a partner's node events go in one batch; a node unknown by then does not cost the others theirs", async () => {
    const { provider, node } = await linked('batched');
    const partnerId = provider.node!.partnerId;
    const at = 3_000_000;
    await publish(d.db, 'node', [
      { partnerId, externalId: 'batched-node', type: 'connect', at, eventId: 'b1' },
      { partnerId, externalId: 'never-registered', type: 'connect', at, eventId: 'b2' },
      { partnerId, externalId: 'batched-node', type: 'heartbeat', at: at + 1000, eventId: 'b3' },
    ]);
    expect(await events(node.id)).toEqual([
      { type: 'connect', event_id: 'b1' },
      { type: 'heartbeat', event_id: 'b3' },
    ]);
  });

  it('earnings: tokens to unit_shared, what was earned to usd_earned, exactly, with hourly served figures', async () => {
    const { node } = await linked('earning');
    for (let i = 0; i < 7; i++) await publish(d.db, 'served', { nodeId: node.id, usd: '0.0000325', tokens: 13, at: 3_600_000 * 10 + i });
    await publish(d.db, 'served', { nodeId: node.id, usd: '0.000000000000000000001', tokens: 1, at: 3_600_000 * 11 });
    await flushEarnings();
    const [row] = (
      await d.db.execute<{ unit_shared: string; usd_earned: string }>(
        sql`select unit_shared::text, usd_earned::text from nodes where id = ${node.id}`,
      )
    ).rows;
    expect(Number(row!.unit_shared)).toBe(92);
    // 91 × 0.0025 / 1000 + 1e-21, not rounded away
    expect(row!.usd_earned.replace(/0+$/, '')).toBe('0.000227500000000000001');
    const hours = (
      await d.db.execute<{ hour_start: string; requests: number; tokens: string }>(
        sql`select hour_start::text, requests, tokens::text from node_served_hourly where node_id = ${node.id} order by hour_start`,
      )
    ).rows;
    expect(hours).toEqual([
      { hour_start: String(3_600_000 * 10), requests: 7, tokens: '91' },
      { hour_start: String(3_600_000 * 11), requests: 1, tokens: '1' },
    ]);
  });
});
