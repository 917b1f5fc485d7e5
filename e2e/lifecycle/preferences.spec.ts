import { expect, test } from '@playwright/test';
import { runAdmin } from '../support/fixtures';
import { adminApi, startFake } from '../support/providers';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * Routing preferences per request (design §17), as OpenRouter's clients send them: `provider`
 * {order, only, ignore, allow_fallbacks, sort, max_price} and fallback `models`, consumed by Triad —
 * the model servers never see them — with a key's defaults. Two fake model servers on real sockets,
 * one cheap and slow, one dear and quick.
 */
test.afterAll(removeDataDirs);

const chat = async (server: RunningServer, key: string, body: Record<string, unknown>) => {
  const res = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-fixed', max_tokens: 8, messages: [{ role: 'user', content: 'route me' }], ...body }),
  });
  return { status: res.status, provider: res.headers.get('x-triad-provider'), body: await res.json() };
};

test('sort by price or latency, only, ignore, order, max_price, fallback models and a key’s defaults; the servers never see them', async () => {
  test.setTimeout(120_000);
  const slow = await startFake(await freePort(), ['--latency-ms', '150']);
  const quick = await startFake(await freePort(), ['--latency-ms', '5']);
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_PROVIDER_PROBE_S: '1', TRIAD_GUIDE_DELAY_MS: '0' });
  const env = { TRIAD_DATA_DIR: dataDir };
  try {
    for (const [name, fake, prompt, completion] of [
      ['cheap', slow, '0.1', '0.5'],
      ['dear', quick, '2', '5'],
    ] as const) {
      const { status } = await adminApi(server, 'POST', '/providers', {
        name,
        base_url: fake.url,
        models: ['fake-fixed', 'fake-echo'],
        price_prompt: prompt,
        price_completion: completion,
      });
      expect(status).toBe(201);
    }
    const { org_id } = await runAdmin(env, ['org', 'create', '--name', 'Routing']);
    const { api_key: key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '100000']);
    const models = async () =>
      (await (await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()).data as {
        id: string;
        providers?: { healthy: number };
      }[];
    await expect.poll(async () => (await models()).find((m) => m.id === 'fake-fixed')?.providers?.healthy, { timeout: 15_000 }).toBe(2);

    const servedBy = async (body: Record<string, unknown>, n = 4) => {
      const seen = new Set<string | null>();
      for (let i = 0; i < n; i++) {
        const r = await chat(server, key!, body);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        seen.add(r.provider);
      }
      return [...seen].sort();
    };
    // Without preferences both serve (weights 1 : 1); each is measured meanwhile.
    expect(await servedBy({})).toEqual(['cheap', 'dear']);
    expect(await servedBy({ provider: { sort: 'price' } })).toEqual(['cheap']);
    expect(await servedBy({ provider: { sort: 'latency' } })).toEqual(['dear']); // 5 ms to a first byte against 150
    expect(await servedBy({ provider: { only: ['dear'] } })).toEqual(['dear']);
    expect(await servedBy({ provider: { ignore: ['dear'] } })).toEqual(['cheap']);
    expect(await servedBy({ provider: { order: ['dear', 'cheap'] } })).toEqual(['dear']);
    expect(await servedBy({ provider: { max_price: { completion: 1 } } })).toEqual(['cheap']);

    // A preference that leaves no provider: 400 naming it.
    const none = await chat(server, key!, { provider: { only: ['elsewhere'] } });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: 'unsupported_parameter', param: 'provider.only' });
    expect(none.body.error.message).toContain('cheap, dear');
    const dear = await chat(server, key!, { provider: { max_price: { prompt: 0.01 } } });
    expect(dear.status).toBe(400);
    expect(dear.body.error.param).toBe('provider.max_price');
    const typo = await chat(server, key!, { provider: { sort: 'cheapest' } });
    expect(typo.status).toBe(400);
    expect(typo.body.error.message).toContain('provider.sort is price, latency or throughput');

    // Fallback models: the first that can be served answers, and the reply says which.
    const fell = await chat(server, key!, { model: 'no-such-model', models: ['fake-echo'] });
    expect(fell.status).toBe(200);
    expect(fell.body.model).toBe('fake-echo');
    expect(fell.body.choices[0].message.content).toBe('Echo: route me');

    // The same on the Responses and Messages APIs (translated onto the providers' Chat Completions).
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await fetch(`${server.url}/api/v1/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, provider: res.headers.get('x-triad-provider'), body: await res.json() };
    };
    for (const only of ['cheap', 'dear']) {
      const response = await post('responses', {
        model: 'no-such-model',
        models: ['fake-echo'],
        provider: { only: [only] },
        input: 'route me',
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response).toMatchObject({ provider: only, body: { model: 'fake-echo', output: [{ content: [{ text: 'Echo: route me' }] }] } });
      const message = await post('messages', {
        model: 'no-such-model',
        models: ['fake-echo'],
        provider: { only: [only] },
        max_tokens: 8,
        messages: [{ role: 'user', content: 'route me' }],
      });
      expect(message.status, JSON.stringify(message.body)).toBe(200);
      expect(message).toMatchObject({ provider: only, body: { model: 'fake-echo', content: [{ type: 'text', text: 'Echo: route me' }] } });
    }
    const refused = await post('responses', { model: 'fake-fixed', provider: { only: ['elsewhere'] }, input: 'route me' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: 'provider.only' });
    const badList = await post('messages', {
      model: 'fake-fixed',
      models: 'fake-echo',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(badList.status).toBe(400);
    expect(badList.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(badList.body.error.message).toContain('models');

    // A key's defaults, for requests that give none.
    const { api_key: pinned } = await runAdmin(env, [
      'apikey',
      'create',
      '--org',
      org_id!,
      '--rpm',
      '100000',
      '--preferences',
      '{"only":["dear"]}',
    ]);
    const asPinned = async (body: Record<string, unknown>) => (await chat(server, pinned!, body)).provider;
    for (let i = 0; i < 3; i++) expect(await asPinned({})).toBe('dear');
    expect(await asPinned({ provider: { only: ['cheap'] } })).toBe('cheap'); // the request's own win

    // Neither server ever saw a preference or the fallback list.
    for (const fake of [slow, quick]) {
      const raw = ((await (await fetch(`http://127.0.0.1:${fake.port}/__log`)).json()) as { raw: string[] }).raw;
      expect(raw.length).toBeGreaterThan(5);
      for (const text of raw) {
        const body = JSON.parse(text);
        expect(body).not.toHaveProperty('provider');
        expect(body).not.toHaveProperty('models');
      }
    }
  } finally {
    await server.stop();
    await Promise.all([slow.kill(), quick.kill()]);
  }
});
