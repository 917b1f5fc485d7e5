import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { freshDatabase } from '../../lib/db/fresh-database';
import { runAdmin } from '../support/fixtures';
import { adminApi, type FakeServer, startFake } from '../support/providers';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';
import { namedSseEvents } from '../support/sse';
import { until } from '../support/until';

/*
 * The money loop (design §17) end to end, with a fake model server on a real socket and real Triad
 * servers: what a reply costs in every dialect, a node's earnings and the network's fee adding up to
 * the consumers' cost to the last digit, a node's statement adding up to its earnings, and budgets
 * as hard caps under bursts — on one instance (the embedded database), and over two instances on
 * PostgreSQL (the database's conditional update) and on Redis (its Lua script), one of them killed
 * with a request in flight.
 */
test.afterAll(removeDataDirs);

const PRICE = { prompt: '1.25', completion: '3.5' };
/** USD of `p` prompt and `c` completion tokens at PRICE, in units of 10⁻⁸ USD (exact). */
const units = (p: number, c: number) => BigInt(p) * 125n + BigInt(c) * 350n;

/** `units` × 10^-scale as the API writes decimals (no trailing zeros). */
function decimal(n: bigint, scale: number): string {
  const digits = n.toString().padStart(scale + 1, '0');
  const frac = digits.slice(-scale).replace(/0+$/, '');
  return frac ? `${digits.slice(0, -scale)}.${frac}` : digits.slice(0, -scale);
}

/** A decimal text in units of 10^-scale. */
const toUnits = (text: string, scale: number) => {
  const [whole, frac = ''] = text.split('.');
  return BigInt(whole! + frac.padEnd(scale, '0'));
};

/** The events of a stream (which may carry `event:` lines), without its terminator. */
const events = (text: string) => namedSseEvents(text).filter((d) => d !== '[DONE]') as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any

/** How long these tests wait for a state (an account settled, a provider in service): longer than until()'s default. */
const SETTLE_MS = 15_000;

const post = (server: RunningServer, path: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const keyInfo = async (server: RunningServer, key: string) =>
  (await (await fetch(`${server.url}/api/v1/key`, { headers: { authorization: `Bearer ${key}` } })).json()).data;

/** A priced provider of the fake's models, linked to `node` of the tenant's partner when given. */
async function pricedProvider(server: RunningServer, fake: FakeServer, node?: { partner_id: string; partner_node_id: string }) {
  const { status, body } = await adminApi(server, 'POST', '/providers', {
    name: 'priced',
    base_url: fake.url,
    models: ['fake-echo', 'fake-no-usage', 'fake-slow', 'fake-embed'],
    price_prompt: PRICE.prompt,
    price_completion: PRICE.completion,
    ...(node ? { node } : {}),
  });
  expect(status, JSON.stringify(body)).toBe(201);
  expect(body.data).toMatchObject({ price_prompt: '1.25', price_completion: '3.5', price_per_1k: null });
}

test('every reply says what it cost; a node earns the cost less the fee, exactly, and its statement adds up to it', async () => {
  test.setTimeout(120_000);
  const fake = await startFake(await freePort());
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_PROVIDER_PROBE_S: '1',
    TRIAD_GUIDE_DELAY_MS: '0',
    TRIAD_NETWORK_FEE_PERCENT: '12.5',
  });
  const env = { TRIAD_DATA_DIR: dataDir };
  try {
    const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Money']);
    const { api_key: key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '100000']);
    const { partner_id, partner_secret } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', 'Earner']);
    await runAdmin(env, ['node', 'register', '--partner', partner_id!, '--external-id', 'gpu-1']);
    await pricedProvider(server, fake, { partner_id: partner_id!, partner_node_id: 'gpu-1' });
    await until(
      'the priced provider in service',
      async () => (await (await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()).data,
      (m: { id: string; providers?: { healthy: number } }[]) => m.some((x) => x.id === 'fake-echo' && x.providers?.healthy === 1),
      SETTLE_MS,
    );

    let spent = 0n; // units of 10⁻⁸ USD
    const billed = (p: number, c: number, cost: unknown) => {
      expect(cost, `${p} prompt + ${c} completion tokens`).toBe(Number(decimal(units(p, c), 8)));
      spent += units(p, c);
    };
    const messages = [{ role: 'user', content: 'what does it cost' }];

    // Chat Completions, whole and streamed (the usage chunk the client asked for).
    const whole = await (await post(server, '/api/v1/chat/completions', key!, { model: 'fake-echo', messages })).json();
    billed(whole.usage.prompt_tokens, whole.usage.completion_tokens, whole.usage.cost);
    const streamed = events(
      await (
        await post(server, '/api/v1/chat/completions', key!, {
          model: 'fake-echo',
          messages,
          stream: true,
          stream_options: { include_usage: true },
        })
      ).text(),
    );
    const usageChunk = streamed.find((c) => c.usage)!;
    billed(usageChunk.usage.prompt_tokens, usageChunk.usage.completion_tokens, usageChunk.usage.cost);

    // The Responses API, whole and streamed (its final event's response).
    const response = await (await post(server, '/api/v1/responses', key!, { model: 'fake-echo', input: 'what does it cost' })).json();
    billed(response.usage.input_tokens, response.usage.output_tokens, response.usage.cost);
    const completed = events(
      await (await post(server, '/api/v1/responses', key!, { model: 'fake-echo', input: 'what does it cost', stream: true })).text(),
    ).find((e) => e.type === 'response.completed')!;
    billed(completed.response.usage.input_tokens, completed.response.usage.output_tokens, completed.response.usage.cost);

    // Anthropic's Messages API, whole and streamed (message_delta's usage).
    const anthropic = { 'anthropic-version': '2023-06-01' };
    const message = await (
      await post(server, '/api/v1/messages', key!, { model: 'fake-echo', max_tokens: 64, messages }, anthropic)
    ).json();
    billed(message.usage.input_tokens, message.usage.output_tokens, message.usage.cost);
    const delta = events(
      await (
        await post(server, '/api/v1/messages', key!, { model: 'fake-echo', max_tokens: 64, messages, stream: true }, anthropic)
      ).text(),
    ).find((e) => e.type === 'message_delta')!;
    billed(delta.usage.input_tokens, delta.usage.output_tokens, delta.usage.cost);

    // Embeddings: the input's tokens at the prompt price.
    const embedded = await (await post(server, '/api/v1/embeddings', key!, { model: 'fake-embed', input: 'what does it cost' })).json();
    billed(embedded.usage.prompt_tokens, 0, embedded.usage.cost);

    // The key's spend is the sum of the replies' costs; the node earned it less 12.5 %, to the last digit.
    const info = await until(
      'the spend recorded',
      () => keyInfo(server, key!),
      (i) => i.usage === Number(decimal(spent, 8)),
      SETTLE_MS,
    );
    expect(info).toMatchObject({ usage_daily: info.usage, usage_weekly: info.usage, usage_monthly: info.usage, limit: null });
    const earned = decimal(spent * 875n, 11); // × (1 − 0.125), in units of 10⁻¹¹
    const stats = { authorization: `Bearer ${org_token}` };
    // Each completion's earning reaches the node's statistics behind its reply: wait for all seven (not the
    // first), to the last digit — a sum that never reaches it, or passes it, fails here with the last value.
    const node = await until(
      'the earnings recorded',
      async () =>
        (await (await fetch(`${server.url}/api/v1/partner/nodes?secret=${partner_secret}`, { headers: stats })).json()).data.entries[0],
      (n: { usd_earned: string }) => n.usd_earned === earned,
      SETTLE_MS,
    );
    // The ledger: the consumer's cost (its usage rows, exact) = the node's earnings + the network's 12.5 %, to the last digit.
    const usage = (await (await fetch(`${server.url}/api/org/usage?group_by=key&bucket=day`, { headers: stats })).json()).data;
    const cost = usage.reduce((sum: bigint, p: { cost: string }) => sum + toUnits(p.cost, 11), 0n);
    expect(cost).toBe(spent * 1000n); // every reply's cost, summed
    expect(toUnits(node.usd_earned, 11) + (cost * 125n) / 1000n).toBe(cost);
    expect(node.usd_earned).toBe(earned);

    // The statement: per day and per month, its periods add up to what the node earned.
    for (const bucket of ['day', 'month']) {
      const res = await fetch(`${server.url}/api/v1/partner/earnings?secret=${partner_secret}&partner_node_id=gpu-1&bucket=${bucket}`, {
        headers: stats,
      });
      expect(res.status).toBe(200);
      const s = (await res.json()).data;
      expect(s).toMatchObject({ partner_node_id: 'gpu-1', bucket, usd_earned: earned, total: { requests: 7, usd_earned: earned } });
      expect(s.periods.reduce((n: number, p: { requests: number }) => n + p.requests, 0)).toBe(7);
      expect(s.periods.at(-1).usd_earned).toBe(earned); // all of it today
    }
    const now = Date.now();
    const ranged = await fetch(
      `${server.url}/api/v1/partner/earnings?secret=${partner_secret}&partner_node_id=gpu-1&started_at=${now - 3 * 86_400_000}&ended_at=${now}`,
      { headers: stats },
    );
    expect((await ranged.json()).data.periods).toHaveLength(4); // three days back and today, whole UTC days
    const tooLong = await fetch(
      `${server.url}/api/v1/partner/earnings?secret=${partner_secret}&partner_node_id=gpu-1&started_at=0&ended_at=${400 * 86_400_000}`,
      { headers: stats },
    );
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error).toMatchObject({ message: 'INVALID_PARAMETERS', status: 400 });
  } finally {
    await server.stop();
    await fake.kill();
  }
});

/** `count` completions at once, spread over `servers`: their statuses and the 402s' messages. */
async function burst(servers: RunningServer[], key: string, count: number) {
  const replies = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      post(servers[i % servers.length]!, '/api/v1/chat/completions', key, {
        model: 'fake-echo',
        max_tokens: 20,
        messages: [{ role: 'user', content: 'hi' }],
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    ),
  );
  return replies;
}

/** What a 402 says: the most the request could cost, and what remained. */
const refusal = (message: string) => {
  const m = /up to \$([\d.]+)\): \$([\d.]+) remains/.exec(message);
  expect(m, message).not.toBeNull();
  return { most: Number(m![1]), remains: Number(m![2]) };
};

test('a budget is a hard cap under a burst: never spent past, never refused while it covers the request', async () => {
  test.setTimeout(120_000);
  const fake = await startFake(await freePort());
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_PROVIDER_PROBE_S: '1',
    TRIAD_GUIDE_DELAY_MS: '0',
    TRIAD_BUDGET_OUTPUT_TOKENS: '50',
  });
  const env = { TRIAD_DATA_DIR: dataDir };
  try {
    const { org_id } = await runAdmin(env, ['org', 'create', '--name', 'Budgeted']);
    await pricedProvider(server, fake);
    const { api_key: key } = await runAdmin(env, [
      'apikey',
      'create',
      '--org',
      org_id!,
      '--rpm',
      '100000',
      '--budget-usd',
      '0.0005',
      '--budget-period',
      'day',
    ]);
    await until(
      'the priced provider in service',
      async () => (await (await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()).data,
      (m: { id: string; providers?: { healthy: number } }[]) => m.some((x) => x.id === 'fake-echo' && x.providers?.healthy === 1),
      SETTLE_MS,
    );
    // A request that bounds its output by nothing (no max_tokens; the fake says no context length) is
    // bounded to what its budget reserved: the server is asked for at most TRIAD_BUDGET_OUTPUT_TOKENS.
    const unbounded = await post(server, '/api/v1/chat/completions', key!, {
      model: 'fake-no-usage',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(unbounded.status).toBe(200);
    const spentBefore = ((await unbounded.json()) as { usage: { cost: number } }).usage.cost;
    expect(spentBefore).toBeGreaterThan(0);
    const sent = ((await (await fetch(`http://127.0.0.1:${fake.port}/__log`)).json()) as { requests: { max_tokens?: number }[] }).requests;
    expect(sent.at(-1)!.max_tokens).toBe(50);

    const replies = await burst([server], key!, 20);
    const ok = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 402);
    expect(ok.length + refused.length, JSON.stringify(replies.filter((r) => r.status !== 200 && r.status !== 402))).toBe(20);
    expect(refused[0]!.body.error).toEqual({ type: 'insufficient_quota', code: 'budget_exceeded', message: expect.any(String) });
    const { most } = refusal(refused[0]!.body.error.message);
    // At least as many as what the budget still held before the burst covers of the most each could cost
    // (more when some settle early: the burst's requests are taken in the order they come, and settled as
    // their replies come); each refused when, and only when, what remained could not cover it.
    expect(ok.length).toBeGreaterThanOrEqual(Math.floor((0.0005 - spentBefore) / most + 1e-9));
    for (const r of refused) expect(refusal(r.body.error.message).remains).toBeLessThan(most);
    expect(refused[0]!.body.error.message).toMatch(/^This API key's budget per day of \$0\.0005 cannot cover this request/);
    expect(refused[0]!.body.error.message).toContain(
      `whole again at ${new Date(Math.ceil(Date.now() / 86_400_000) * 86_400_000).toISOString()}`,
    );

    // One at a time, until the remainder no longer covers a request: then, and only then, refused.
    let last: { status: number; body: { error: { message: string } } } | undefined;
    for (let i = 0; i < 40; i++) {
      [last] = await burst([server], key!, 1);
      if (last!.status !== 200) break;
    }
    expect(last!.status).toBe(402);
    const at = refusal(last!.body.error.message);
    expect(at.remains).toBeLessThan(at.most);
    const info = await until(
      'settled',
      () => keyInfo(server, key!),
      (i) => Math.abs(i.limit_remaining + i.usage - 0.0005) < 1e-12,
      SETTLE_MS,
    );
    expect(info.usage).toBeLessThanOrEqual(0.0005);
    expect(info).toMatchObject({ limit: 0.0005, limit_reset: 'daily' });
    expect(info.limit_remaining).toBeLessThan(at.most);

    // Removing the budget lets it through again; the CLI says what it set.
    const changed = await runAdmin(env, ['apikey', 'update', '--key', key!, '--budget-usd', 'none']);
    expect(changed).toMatchObject({ budget_usd: null, budget_period: null });
    expect((await burst([server], key!, 1))[0]!.status).toBe(200);
  } finally {
    await server.stop();
    await fake.kill();
  }
});

const base = process.env.TEST_DATABASE_URL;

for (const store of ['database', 'redis'] as const) {
  test(`two instances share a budget exactly through ${store === 'redis' ? 'Redis' : 'PostgreSQL'}; a killed instance's hold lapses`, async () => {
    test.skip(!base, 'needs TEST_DATABASE_URL (a PostgreSQL server)');
    test.skip(store === 'redis' && !fs.existsSync('/usr/bin/redis-server'), 'needs redis-server');
    test.setTimeout(180_000);
    const db = await freshDatabase(base!, `triad_money_${store}`);
    const fake = await startFake(await freePort());
    let redis: import('node:child_process').ChildProcess | undefined;
    const shared: Record<string, string> = {
      DATABASE_URL: db.url,
      TRIAD_SECRET_KEY: randomBytes(32).toString('hex'),
      TRIAD_DEMO: '0',
      TRIAD_PROVIDER_PROBE_S: '1',
      TRIAD_GUIDE_DELAY_MS: '0',
      TRIAD_UPSTREAM_TIMEOUT_MS: '3000',
    };
    if (store === 'redis') {
      const port = await freePort();
      const { spawn } = await import('node:child_process');
      redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
        stdio: 'ignore',
      });
      shared.REDIS_URL = `redis://127.0.0.1:${port}`;
      shared.TRIAD_REDIS_PREFIX = `money-${Date.now()}`;
    }
    const servers = [await startServer(freshDataDir(), shared), await startServer(freshDataDir(), shared)];
    const env = { DATABASE_URL: db.url, TRIAD_SECRET_KEY: shared.TRIAD_SECRET_KEY!, TRIAD_DATA_DIR: servers[0]!.dataDir };
    try {
      const { org_id } = await runAdmin(env, ['org', 'create', '--name', 'Two']);
      await pricedProvider(servers[0]!, fake);
      const budget = '0.0005';
      const { api_key: key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '100000', '--budget-usd', budget]);
      for (const s of servers)
        await until(
          'the priced provider in service on both',
          async () => (await (await fetch(`${s.url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()).data,
          (m: { id: string; providers?: { healthy: number } }[]) => m.some((x) => x.id === 'fake-echo' && x.providers?.healthy === 1),
          SETTLE_MS,
        );

      // 30 at once over both instances: as many as the budget holds at once, the rest refused.
      const replies = await burst(servers, key!, 30);
      const ok = replies.filter((r) => r.status === 200).length;
      const refused = replies.filter((r) => r.status === 402);
      expect(ok + refused.length).toBe(30);
      const { most } = refusal(refused[0]!.body.error.message);
      expect(ok).toBeGreaterThanOrEqual(Math.floor(Number(budget) / most));
      for (const r of refused) expect(refusal(r.body.error.message).remains).toBeLessThan(most);
      // Both instances report the same spend, within the budget.
      const infos = await until(
        'both instances agree',
        () => Promise.all(servers.map((s) => keyInfo(s, key!))),
        ([a, b]) =>
          a.usage > 0 &&
          a.usage === b.usage &&
          a.limit_remaining === b.limit_remaining &&
          Math.abs(a.limit_remaining + a.usage - 0.0005) < 1e-12,
        SETTLE_MS,
      );
      expect(infos[0].usage).toBeLessThanOrEqual(0.0005);
      expect(infos[0]).toMatchObject({ limit: 0.0005, limit_reset: 'monthly' });

      // A request in flight on an instance that is killed: its hold lapses within a request's timeout.
      const before = infos[0].limit_remaining;
      const slow = post(servers[1]!, '/api/v1/chat/completions', key!, {
        model: 'fake-slow',
        max_tokens: 20,
        stream: true,
        messages: [{ role: 'user', content: 'slow' }],
      }).catch(() => null);
      await until(
        'held',
        () => keyInfo(servers[0]!, key!),
        (i) => i.limit_remaining < before,
        SETTLE_MS,
      );
      await servers[1]!.stop('SIGKILL');
      await slow;
      // Swept by the next reservation past the hold's expiry (3 s): the budget is whole again but for what was spent.
      await new Promise((r) => setTimeout(r, 3500));
      expect((await burst([servers[0]!], key!, 1))[0]!.status).toBe(200);
      const after = await until(
        'the lapsed hold gone',
        () => keyInfo(servers[0]!, key!),
        (i) => Math.abs(i.limit_remaining + i.usage - 0.0005) < 1e-12,
        SETTLE_MS,
      );
      expect(after.usage).toBeLessThanOrEqual(0.0005);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await fake.kill();
      redis?.kill();
      await db.drop();
    }
  });
}
