import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from '@playwright/test';
import { freshDatabase } from '../../lib/db/fresh-database';
import { runAdmin, runAdminRaw } from '../support/fixtures';
import { adminApi, chat, type FakeServer, startFake } from '../support/providers';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';
import { until } from '../support/until';

/*
 * Providers (design §10) end to end: fake OpenAI-compatible servers in processes of their own on real
 * sockets, a real Triad, real partner nodes. Routing by weight, failover before the first byte,
 * health as the linked node's connection, earnings to the token.
 */
test.afterAll(removeDataDirs);

/** An organization with an API key (no rate to speak of), a partner and `nodes` registered nodes. */
async function tenant(env: Record<string, string>, nodes: string[]) {
  const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Providers']);
  const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
  const { partner_id, partner_secret } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', 'Serving partner']);
  for (const n of nodes) await runAdmin(env, ['node', 'register', '--partner', partner_id!, '--external-id', n]);
  return { orgToken: org_token!, apiKey: api_key!, partnerId: partner_id!, secret: partner_secret! };
}

type NodeEntry = { external_id: string; unit_shared: string; usd_earned: string; connection_status: string };
async function nodeEntries(server: RunningServer, t: { orgToken: string; secret: string }): Promise<Record<string, NodeEntry>> {
  const res = await fetch(`${server.url}/api/v1/partner/nodes?secret=${t.secret}&limit=100`, {
    headers: { authorization: `Bearer ${t.orgToken}` },
  });
  const body = (await res.json()) as { data: { entries: NodeEntry[] } };
  return Object.fromEntries(body.data.entries.map((e) => [e.external_id, e]));
}
async function nodeDetail(server: RunningServer, t: { orgToken: string; secret: string }, node: string) {
  const res = await fetch(`${server.url}/api/v1/partner/detail?secret=${t.secret}&partner_node_id=${node}`, {
    headers: { authorization: `Bearer ${t.orgToken}` },
  });
  return ((await res.json()) as { data: { connection_status: string; total_uptime: number } }).data;
}

/** `units` × 10^-scale as the statistics API writes decimals (no trailing zeros). */
function decimal(units: bigint, scale: number): string {
  const digits = units.toString().padStart(scale + 1, '0');
  const frac = digits.slice(-scale).replace(/0+$/, '');
  return frac ? `${digits.slice(0, -scale)}.${frac}` : digits.slice(0, -scale);
}

/** The providers' attempt counts from the metrics (ok and failed), to explain a split. */
async function providerCounts(server: RunningServer): Promise<string> {
  const text = await (await fetch(`${server.url}/api/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('triad_provider_requests_total'))
    .join('; ');
}

/** Runs `count` completions `concurrency` at a time; returns how many each provider served and every status. */
async function traffic(server: RunningServer, apiKey: string, model: string, count: number, concurrency: number, stream = false) {
  const served: Record<string, number> = {};
  const statuses: number[] = [];
  const results: Awaited<ReturnType<typeof chat>>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const r = await chat(server, apiKey, model, { stream });
        statuses.push(r.status);
        results.push(r);
        if (r.provider) served[r.provider] = (served[r.provider] ?? 0) + 1;
      }
    }),
  );
  return { served, statuses, results };
}

/**
 * The serving scenario on one storage engine: weights, exact earnings, a provider killed under load
 * (failover, its node disconnected, its uptime still), then back (connected, serving).
 */
async function servingScenario(storage: Record<string, string>) {
  const fakes = await Promise.all([0, 1, 2].map(async () => startFake(await freePort())));
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_PROVIDER_PROBE_S: '1', TRIAD_GUIDE_DELAY_MS: '0', ...storage });
  const env = { TRIAD_DATA_DIR: dataDir, ...storage };
  try {
    const t = await tenant(env, ['gpu-1', 'gpu-2', 'gpu-3']);
    const prices = ['0.002', '0.0015', '0.001'];
    for (const [i, f] of fakes.entries()) {
      const { status, body } = await adminApi(server, 'POST', '/providers', {
        name: `p${i + 1}`,
        base_url: f.url,
        api_key: `sk-upstream-${i}`,
        renames: { shared: 'fake-echo' },
        models: ['shared'],
        weight: i === 2 ? 2 : 1,
        price_per_1k: prices[i],
        node: { partner_id: t.partnerId, partner_node_id: `gpu-${i + 1}` },
      });
      expect(status).toBe(201);
      expect(body.data).toMatchObject({ name: `p${i + 1}`, has_api_key: true, weight: i === 2 ? 2 : 1 });
      expect(JSON.stringify(body)).not.toContain(`sk-upstream-${i}`);
    }
    const headers = { authorization: `Bearer ${t.apiKey}` };
    const models = await until(
      'all three providers in service',
      async () =>
        (await (await fetch(`${server.url}/api/v1/models`, { headers })).json()) as { data: { id: string; providers?: object }[] },
      (m) => JSON.stringify(m.data.find((x) => x.id === 'shared')?.providers) === '{"total":3,"healthy":3}',
    );
    expect(models.data.map((m) => m.id)).toEqual(['triad-guide', 'shared']); // fake-echo is served as `shared` only
    await until(
      'nodes connected',
      () => nodeEntries(server, t),
      (n) => ['gpu-1', 'gpu-2', 'gpu-3'].every((id) => n[id]?.connection_status === 'connected'),
    );

    // 400 completions one at a time: 1 : 1 : 2 exactly (smooth weighted round robin).
    const one = await traffic(server, t.apiKey, 'shared', 400, 1);
    expect(one.statuses.every((s) => s === 200)).toBe(true);
    expect(one.served, await providerCounts(server)).toEqual({ p1: 100, p2: 100, p3: 200 });
    // The Providers page's figures: each one's share of the last 24 hours' attempts, and its error rate.
    const listed = (await adminApi(server, 'GET', '/providers')).body.data as unknown as {
      name: string;
      traffic: Record<string, unknown>;
    }[];
    expect(Object.fromEntries(listed.filter((p) => /^p\d$/.test(p.name)).map((p) => [p.name, p.traffic]))).toEqual({
      p1: { hours: 24, requests: 100, failed: 0, share: 0.25, error_rate: 0 },
      p2: { hours: 24, requests: 100, failed: 0, share: 0.25, error_rate: 0 },
      p3: { hours: 24, requests: 200, failed: 0, share: 0.5, error_rate: 0 },
    });
    // 600 more, four at a time: a provider slow for a moment (a loaded machine) is steered around by
    // the in-flight rule, so the split is near the weights rather than on them.
    const four = await traffic(server, t.apiKey, 'shared', 600, 4);
    expect(four.statuses.every((s) => s === 200)).toBe(true);
    expect(four.served.p1! + four.served.p2! + four.served.p3!).toBe(600);
    const near = (n: number | undefined, share: number) => n! >= share * 0.75 && n! <= share * 1.25;
    const split = `${JSON.stringify(four.served)}; ${await providerCounts(server)}`;
    expect(near(four.served.p1, 150) && near(four.served.p2, 150) && near(four.served.p3, 300), split).toBe(true);
    const served = Object.fromEntries(['p1', 'p2', 'p3'].map((p) => [p, one.served[p]! + four.served[p]!]));

    // Each completion is 13 tokens (the fake's usage: 11 + "Echo: " "hi"): unit_shared and usd_earned exactly.
    // Written behind the requests (within a second): polled until they are, then exact.
    const n = [served.p1!, served.p2!, served.p3!].map(BigInt);
    await expect
      .poll(async () => {
        const nodes = await nodeEntries(server, t);
        return [nodes['gpu-1'], nodes['gpu-2'], nodes['gpu-3']];
      })
      .toMatchObject([
        { unit_shared: String(13n * n[0]!), usd_earned: decimal(13n * n[0]! * 2n, 6) },
        { unit_shared: String(13n * n[1]!), usd_earned: decimal(13n * n[1]! * 15n, 7) },
        { unit_shared: String(13n * n[2]!), usd_earned: decimal(13n * n[2]! * 1n, 6) },
      ]);

    // Kill p1 under streamed load: no request that had not begun streaming sees an error.
    const load = traffic(server, t.apiKey, 'shared', 600, 4, true);
    await sleep(300);
    await fakes[0]!.kill();
    // Watched from the kill on, while the load goes on (not after it: finishing 600 streams is no part of it).
    const watchedFrom = Date.now();
    const disconnected = until(
      'gpu-1 disconnected',
      () => nodeDetail(server, t, 'gpu-1'),
      (d) => d.connection_status === 'disconnected',
    ).then((value) => ({ value, after: Date.now() - watchedFrom }));
    const { results } = await load;
    expect(results.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    for (const r of results.filter((r) => 'error' in r && r.error)) expect(r.provider).toBe('p1'); // cut mid-stream: only on the killed one
    expect(results.filter((r) => 'done' in r && !r.done)).toEqual([]);

    // Its node turns disconnected within one probe interval (1 s, and a poll's worth), and its uptime stops growing.
    const down = await disconnected;
    expect(down.after).toBeLessThan(1000 + 1500);
    await sleep(1200);
    expect((await nodeDetail(server, t, 'gpu-1')).total_uptime).toBe(down.value.total_uptime);
    const after = await traffic(server, t.apiKey, 'shared', 40, 2);
    expect(after.statuses.every((s) => s === 200)).toBe(true);
    expect(after.served.p1).toBeUndefined();
    const list = await adminApi(server, 'GET', '/providers');
    expect((list.body.data as unknown as { name: string; health: { state: string } }[]).find((p) => p.name === 'p1')?.health.state).toBe(
      'down',
    );

    // Back on its port: connected again, and it serves again.
    fakes[0] = await startFake(fakes[0]!.port);
    await until(
      'gpu-1 connected again',
      () => nodeDetail(server, t, 'gpu-1'),
      (d) => d.connection_status === 'connected',
      5000,
    );
    const back = await traffic(server, t.apiKey, 'shared', 40, 2);
    expect(back.served.p1).toBeGreaterThan(0);
  } finally {
    await server.stop();
    await Promise.all(fakes.map((f) => f.kill()));
  }
}

test.describe('on the embedded database', () => {
  let fakes: FakeServer[] = [];
  let server: RunningServer;
  test.afterEach(async () => {
    await server?.stop();
    await Promise.all(fakes.map((f) => f.kill()));
    fakes = [];
  });

  test('weights split traffic, linked nodes earn to the token, a killed provider fails over and its node disconnects, and comes back', async () => {
    test.setTimeout(120_000);
    await servingScenario({});
  });

  test('garbage, a 429, silence and a half-written stream: tried elsewhere before the first byte, never after', async () => {
    test.setTimeout(60_000);
    fakes = [await startFake(await freePort())];
    const [f] = fakes;
    const dataDir = freshDataDir();
    server = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_PROVIDER_PROBE_S: '1', TRIAD_GUIDE_DELAY_MS: '0' });
    const t = await tenant({ TRIAD_DATA_DIR: dataDir }, []);
    const add = async (name: string, renames: Record<string, string>, extra: object = {}) =>
      expect(
        (await adminApi(server, 'POST', '/providers', { name, base_url: f!.url, renames, models: Object.keys(renames), ...extra })).status,
      ).toBe(201);
    // `ok` serves every model well; each other provider serves one of them badly, and is tried first (weight 100).
    await add('ok', { 'm-garbage': 'fake-echo', 'm-429': 'fake-echo', 'm-silent': 'fake-echo', 'm-half': 'fake-echo' });
    await add('garbage', { 'm-garbage': 'fake-garbage', 'only-garbage': 'fake-garbage' }, { weight: 100 });
    await add('busy', { 'm-429': 'fake-429' }, { weight: 100 });
    await add('busy-alone', { 'only-429': 'fake-429' });
    await add('silent', { 'm-silent': 'fake-silent', 'only-silent': 'fake-silent' }, { weight: 100, timeout_ms: 300 });
    await add('half', { 'm-half': 'fake-midstream-fail' }, { weight: 100 });
    await add('dead', { 'only-dead': 'fake-echo' }, { base_url: `http://127.0.0.1:${await freePort()}/v1` });

    for (const model of ['m-garbage', 'm-429', 'm-silent']) {
      for (const stream of [false, true]) {
        const r = await chat(server, t.apiKey, model, { stream, content: 'one two three' });
        expect({ model, status: r.status, provider: r.provider }).toEqual({ model, status: 200, provider: 'ok' });
        expect(stream ? r.text : (r.body as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(
          'Echo: one two three',
        );
      }
    }
    // The 429's Retry-After (30 s) sets `busy` aside: asked once, not again.
    expect((await f!.log()).rate_limited).toBe(1);
    // Every attempt on `garbage` failed before a first byte, none on `ok`: their error rates.
    const rates = Object.fromEntries(
      (
        (await adminApi(server, 'GET', '/providers')).body.data as unknown as {
          name: string;
          traffic: { error_rate: number | null; failed: number };
        }[]
      ).map((p) => [p.name, p.traffic]),
    );
    expect(rates.garbage).toMatchObject({ error_rate: 1 });
    expect(rates.garbage!.failed).toBeGreaterThanOrEqual(2);
    expect(rates.ok).toMatchObject({ error_rate: 0 });

    // A stream cut after its first words is not tried again: those words once, then the error event.
    const half = await chat(server, t.apiKey, 'm-half', { stream: true, content: 'one two three' });
    expect(half).toMatchObject({ status: 200, provider: 'half', text: 'Echo: one ', error: true, done: true });

    // With no one else to try: the chat group's own errors, never another 5xx.
    const only = async (model: string) => {
      const r = await chat(server, t.apiKey, model);
      return { status: r.status, code: (r.body as { error?: { code?: string } }).error?.code, retryAfter: r.headers.get('retry-after') };
    };
    expect(await only('only-garbage')).toEqual({ status: 502, code: 'upstream_error', retryAfter: null });
    expect(await only('only-silent')).toEqual({ status: 502, code: 'upstream_timeout', retryAfter: null });
    expect(await only('only-429')).toEqual({ status: 429, code: 'upstream_rate_limited', retryAfter: '30' });
    expect(await only('only-429')).toEqual({ status: 503, code: 'no_provider_available', retryAfter: '1' }); // set aside for 30 s
    expect(await only('only-dead')).toEqual({ status: 503, code: 'no_provider_available', retryAfter: '1' }); // never reached: models unknown
    expect(await only('no-such-model')).toEqual({ status: 503, code: 'no_provider_available', retryAfter: '1' });
    await adminApi(server, 'DELETE', '/providers/dead');
    expect(await only('no-such-model')).toEqual({ status: 404, code: 'model_not_found', retryAfter: null });
  });

  test('the admin API refuses bad input with the link format, and without the admin secret', async () => {
    const dataDir = freshDataDir();
    server = await startServer(dataDir, { TRIAD_DEMO: '0' });
    const bad = await adminApi(server, 'POST', '/providers', { name: 'x', base_url: 'ftp://nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ message: 'INVALID_PARAMETERS', detail: expect.stringContaining('base_url') });
    const badName = await adminApi(server, 'POST', '/providers', { name: '-x', base_url: 'http://127.0.0.1:9/v1' });
    expect(badName.body.error?.detail).toBe('name: 1–63 letters, digits, dot, underscore or hyphen, starting with a letter or digit');
    expect(
      (await adminApi(server, 'POST', '/providers', { name: 'x', base_url: 'http://127.0.0.1:9/v1', price_per_1k: '-1' })).status,
    ).toBe(400);
    expect(
      (
        await adminApi(server, 'POST', '/providers', {
          name: 'x',
          base_url: 'http://127.0.0.1:9/v1',
          node: { partner_id: 'p', partner_node_id: 'n' },
        })
      ).status,
    ).toBe(400);
    expect((await adminApi(server, 'POST', '/providers', { name: 'x', base_url: 'http://127.0.0.1:9/v1' })).status).toBe(201);
    expect((await adminApi(server, 'POST', '/providers', { name: 'x', base_url: 'http://127.0.0.1:9/v1' })).status).toBe(409);
    expect((await adminApi(server, 'PATCH', '/providers/x', {})).status).toBe(400);
    expect((await adminApi(server, 'PATCH', '/providers/x', { weight: 5 })).body.data).toMatchObject({ weight: 5 });
    expect((await adminApi(server, 'GET', '/providers/nope')).status).toBe(404);
    const anonymous = await fetch(`${server.url}/api/admin/providers`);
    expect(anonymous.status).toBe(401);
    // The CLI, through the same server.
    const listed = await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['provider', 'list']);
    expect((listed.providers as { name: string }[]).map((p) => p.name)).toEqual(['x']);
    const tested = await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['provider', 'test', 'x']);
    expect(tested).toMatchObject({ ok: false, error: expect.any(String) });
    expect(await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['provider', 'remove', 'x'])).toMatchObject({ removed: true });
    // A provider that is not there: a plain error (it was a 500 through the server, a stack trace alone).
    for (const command of ['test', 'remove']) {
      const missing = await runAdminRaw({ TRIAD_DATA_DIR: dataDir }, ['provider', command, 'x']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain('no provider named "x"');
      expect(missing.stderr).not.toMatch(/INTERNAL|\n\s+at /);
    }
  });
});

const base = process.env.TEST_DATABASE_URL;
test.describe('on PostgreSQL', () => {
  test.skip(!base, 'needs TEST_DATABASE_URL (a PostgreSQL server)');

  test('weights, exact earnings, a killed provider failing over and its node disconnecting, on PostgreSQL too', async () => {
    test.setTimeout(120_000);
    const db = await freshDatabase(base!, 'triad_serving');
    try {
      await servingScenario({ DATABASE_URL: db.url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex') });
    } finally {
      await db.drop();
    }
  });

  test('two instances run one prober between them; kill the leader and the other takes over; earnings exact', async () => {
    test.setTimeout(120_000);
    const fake = await startFake(await freePort());
    const db = await freshDatabase(base!, 'triad_providers');
    const env = {
      DATABASE_URL: db.url,
      TRIAD_SECRET_KEY: randomBytes(32).toString('hex'),
      TRIAD_DEMO: '0',
      TRIAD_PROVIDER_PROBE_S: '1',
      TRIAD_GUIDE_DELAY_MS: '0',
    };
    const a = await startServer(freshDataDir(), env);
    const b = await startServer(freshDataDir(), env);
    try {
      const t = await tenant({ ...env, TRIAD_DATA_DIR: a.dataDir }, ['pg-node']);
      expect(
        (
          await adminApi(a, 'POST', '/providers', {
            name: 'pg',
            base_url: fake.url,
            renames: { shared: 'fake-echo' },
            models: ['shared'],
            price_per_1k: '0.0003',
            node: { partner_id: t.partnerId, partner_node_id: 'pg-node' },
          })
        ).status,
      ).toBe(201);
      const leaderOf = async (s: RunningServer) =>
        /triad_provider_prober_leader 1/.test(await (await fetch(`${s.url}/api/metrics`)).text());
      await until(
        'one leader',
        async () => [await leaderOf(a), await leaderOf(b)],
        (l) => l.filter(Boolean).length === 1,
      );
      // Over 4 s, about 4 probes (one instance), not 8.
      const before = (await fake.log()).probes;
      await sleep(4000);
      const probes = (await fake.log()).probes - before;
      expect(probes).toBeGreaterThanOrEqual(3);
      expect(probes).toBeLessThanOrEqual(6);

      // Served through both instances: exact on PostgreSQL too.
      const ra = await traffic(a, t.apiKey, 'shared', 100, 2);
      const rb = await traffic(b, t.apiKey, 'shared', 100, 2);
      expect([...ra.statuses, ...rb.statuses].every((s) => s === 200)).toBe(true);
      await expect // 2 600 tokens × 0.0003 / 1 000, once written behind the requests
        .poll(async () => (await nodeEntries(a, t))['pg-node'])
        .toMatchObject({ unit_shared: '2600', usd_earned: '0.00078' });

      // Kill the leader: the other probes within a few intervals.
      const [leader, other] = (await leaderOf(a)) ? [a, b] : [b, a];
      await leader.stop('SIGKILL');
      await until(
        'the other instance leads',
        () => leaderOf(other),
        (l) => l,
        10_000,
      );
      const from = (await fake.log()).probes;
      await expect.poll(async () => (await fake.log()).probes - from, { timeout: 2500 }).toBeGreaterThanOrEqual(1);
    } finally {
      await a.stop();
      await b.stop();
      await fake.kill();
      await db.drop();
    }
  });
});
