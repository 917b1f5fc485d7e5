import fc from 'fast-check';
import { expect, test } from '@playwright/test';
import WebSocket from 'ws';
import { runAdmin } from '../support/fixtures';
import { adminApi } from '../support/providers';
import { freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';
import { namedSseEvents } from '../support/sse';
import { until } from '../support/until';

/*
 * A partner's node answering anything (design §14, §20): a node agent spoken by hand over a real tunnel
 * replies to each request Triad sends it with a reply made by fast-check — refusals of any status,
 * whole replies cut anywhere or with nonsense in them (negative, huge or textual token counts, no
 * choices, an error object), streams of broken lines, missing [DONE] or an error event, a `fail`
 * frame, a frame that breaks the protocol, the tunnel dropped mid-reply, silence. Clients ask through
 * Chat Completions, the Responses API and Anthropic's Messages, whole and streamed. Whatever the node
 * does: the client gets a well-formed reply in its dialect or an error in its dialect's shape (a 5xx only
 * as the upstream's 502/503/504, never a 500), no request hangs, and the node's statistics, the request
 * log and the server stay sane. Fixed seed, bounded runs (FUZZ_RUNS to run longer).
 */
test.afterAll(removeDataDirs);

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = Number(process.env.FUZZ_SEED ?? 20261207);
const MODEL = 'wild';

type Plan =
  | { kind: 'refuse'; status: number; body: string }
  | { kind: 'whole'; body: string; cuts: number[]; end: boolean }
  | { kind: 'stream'; events: string[]; done: boolean; end: boolean }
  | { kind: 'fail'; message: string }
  | { kind: 'violate'; frame: string }
  | { kind: 'drop' }
  | { kind: 'silence' };

const count = fc.oneof({ weight: 4, arbitrary: fc.nat(2000) }, fc.constantFrom(-5, 1e308, 2 ** 53, 0.5, '7', null, 'many'));
const usage = fc.record({ prompt_tokens: count, completion_tokens: count, total_tokens: count }, { requiredKeys: [] });
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', 'a\u0000b', '\ud800', '😀'.repeat(20)));
const toolCalls = fc.array(
  fc.record(
    {
      index: fc.oneof(fc.nat(3), fc.constant(-1)),
      id: fc.oneof(fc.constant('call_1'), text),
      type: fc.constant('function'),
      function: fc.record({ name: fc.oneof(fc.constant('get_weather'), text), arguments: fc.oneof(fc.constant('{"city":"Paris"}'), text) }),
    },
    { requiredKeys: [] },
  ),
  { maxLength: 2 },
);
const message = fc.record(
  { role: fc.constant('assistant'), content: fc.oneof(text, fc.constant(null)), tool_calls: toolCalls },
  { requiredKeys: ['role'] },
);
const finish = fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', null, 'weird');
const completion = fc.record(
  {
    id: fc.constant('chatcmpl-node'),
    object: fc.constant('chat.completion'),
    model: fc.constant(MODEL),
    choices: fc.oneof(
      { weight: 4, arbitrary: fc.tuple(fc.record({ index: fc.constant(0), message, finish_reason: finish })).map((c) => [...c]) },
      fc.constant([]),
      fc.constant('none'),
    ),
    usage,
  },
  { requiredKeys: ['choices'] },
);
const chunk = fc.record(
  {
    id: fc.constant('chatcmpl-node'),
    object: fc.constant('chat.completion.chunk'),
    model: fc.constant(MODEL),
    choices: fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(
            fc.record({
              index: fc.constant(0),
              delta: fc.record({ content: text, tool_calls: toolCalls }, { requiredKeys: [] }),
              finish_reason: finish,
            }),
          )
          .map((c) => [...c]),
      },
      fc.constant([]),
    ),
    usage: fc.option(usage),
  },
  { requiredKeys: ['choices'] },
);
const garbage = fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('{', '{"choices":', 'null', '[]', '{"error":{"message":"boom"}}'));
const event = fc.oneof(
  { weight: 6, arbitrary: chunk.map((c) => `data: ${JSON.stringify(c)}\n\n`) },
  garbage.map((g) => `data: ${g}\n\n`),
  garbage,
);

const plan: fc.Arbitrary<Plan> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('refuse' as const),
      status: fc.constantFrom(400, 401, 403, 404, 413, 422, 429, 500, 502, 503),
      body: fc.oneof(fc.constant('{"error":{"message":"no"}}'), garbage),
    }),
  },
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('whole' as const),
      body: fc.oneof({ weight: 4, arbitrary: completion.map((c) => JSON.stringify(c)) }, garbage),
      cuts: fc.array(fc.nat(200), { maxLength: 3 }),
      end: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, fc.constant(false)),
    }),
  },
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('stream' as const),
      events: fc.array(event, { minLength: 0, maxLength: 6 }),
      done: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.constant(false)),
      end: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, fc.constant(false)),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('fail' as const), message: text }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('violate' as const),
      frame: fc.constantFrom('not json', '{"t":"data","id":99999,"d":"x"}', '{"t":"head","id":1,"status":42}', '{"t":"hello"}'),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'drop' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'silence' as const }) },
);

type Ask = { api: 'chat' | 'responses' | 'messages'; stream: boolean };
const ask: fc.Arbitrary<Ask> = fc.record({ api: fc.constantFrom('chat', 'responses', 'messages'), stream: fc.boolean() });

/** What a client of `api` sends. */
function requestOf({ api, stream }: Ask): { path: string; body: object } {
  const tools = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  ];
  if (api === 'chat')
    return { path: '/api/v1/chat/completions', body: { model: MODEL, stream, tools, messages: [{ role: 'user', content: 'hi' }] } };
  if (api === 'responses')
    return {
      path: '/api/v1/responses',
      body: {
        model: MODEL,
        stream,
        input: 'hi',
        tools: [{ type: 'function', name: 'get_weather', parameters: tools[0]!.function.parameters }],
      },
    };
  return {
    path: '/api/v1/messages',
    body: {
      model: MODEL,
      stream,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'get_weather', input_schema: tools[0]!.function.parameters }],
    },
  };
}

/** Throws, saying what is wrong, unless the reply is what a client of `api` can take. */
function checkReply(a: Ask, status: number, body: string, what: string) {
  const fail = (why: string) => {
    throw new Error(`${what}: ${why} (status ${status}, body ${body.slice(0, 400)})`);
  };
  const errorShape = (value: unknown) => {
    const v = value as { type?: string; error?: { message?: unknown; type?: unknown; code?: unknown } };
    if (a.api === 'messages') return v?.type === 'error' && typeof v.error?.type === 'string' && typeof v.error?.message === 'string';
    if (a.api === 'responses' && v?.type === 'error') return typeof (v as { message?: unknown }).message === 'string';
    return typeof v?.error?.message === 'string' && typeof v.error.type === 'string';
  };
  if (status >= 500 && ![502, 503, 504].includes(status)) fail('a 5xx of its own');
  if (status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      fail('an error that is not JSON');
    }
    if (!errorShape(parsed)) fail(`not the ${a.api} error shape`);
    return;
  }
  if (status !== 200) fail('neither 200 nor an error');
  if (!a.stream) {
    let v: Record<string, unknown> = {};
    try {
      v = JSON.parse(body);
    } catch {
      fail('a 200 that is not JSON');
    }
    // Passed on as the server wrote it (id, model and usage Triad's): its choices are there.
    if (a.api === 'chat' && !Array.isArray(v.choices)) fail('not a chat.completion');
    if (a.api === 'responses' && !(v.object === 'response' && Array.isArray(v.output))) fail('not a response');
    if (a.api === 'messages' && !(v.type === 'message' && Array.isArray(v.content))) fail('not a message');
    return;
  }
  let list: unknown[] = [];
  try {
    list = namedSseEvents(body);
  } catch (e) {
    fail(`a stream event that is not JSON: ${(e as Error).message}`);
  }
  const last = list.at(-1) as { type?: string } | string | undefined;
  if (a.api === 'chat') {
    if (last !== '[DONE]') fail('a chat stream that does not end with [DONE]');
    for (const e of list.slice(0, -1)) {
      // A chunk is passed on as the server wrote it (its id and model restamped): it has its choices, or is an error.
      if (!Array.isArray((e as { choices?: unknown }).choices) && !errorShape(e)) fail('an event neither a chunk nor an error');
    }
  } else {
    const types = list.map((e) => (e as { type?: string }).type);
    if (types.some((t) => typeof t !== 'string')) fail('an event without a type');
    const ends =
      a.api === 'responses' ? ['response.completed', 'response.incomplete', 'response.failed', 'error'] : ['message_stop', 'error'];
    if (!ends.includes((last as { type: string })?.type)) fail(`a stream that ends with ${JSON.stringify(last)?.slice(0, 100)}`);
  }
}

/** A node agent spoken by hand: it answers each request Triad opens with the plan of the moment. */
class WildNode {
  ws!: WebSocket;
  plan: Plan = { kind: 'drop' };
  opens = 0;
  private window = 0;
  /** The node's id: a node that broke too often is out of service for a while (its circuit open), so the run goes on as another. */
  id = 'wild-0';
  constructor(
    private url: string,
    private secret: string,
  ) {}

  async connect(id: string): Promise<void> {
    this.id = id;
    this.ws?.terminate();
    this.ws = new WebSocket(this.url, { headers: { authorization: `Bearer ${this.secret}` } });
    const ws = this.ws;
    const welcome = new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.on('message', (data) => {
        const f = JSON.parse(data.toString()) as { t: string; id?: number; window?: number };
        if (f.t === 'welcome') {
          this.window = f.window!;
          resolve();
        }
        if (f.t === 'end') void this.answer(ws, f.id!);
      });
    });
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ t: 'hello', node: id, models: [MODEL], max_concurrency: 4, window: 1 << 20, agent: 'fuzz/1', version: 3 }));
    await welcome;
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** The request's body has come (its `end`): the reply, as planned. */
  private async answer(ws: WebSocket, id: number) {
    this.opens++;
    const p = this.plan;
    const send = (f: object) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(f));
    const data = (d: string) => {
      // Within the credit Triad granted (the welcome's window): a reply here is never that long.
      if (d) send({ t: 'data', id, d: d.slice(0, this.window) });
    };
    switch (p.kind) {
      case 'refuse':
        send({ t: 'head', id, status: p.status, ...(p.status === 429 ? { retry_after: 1 } : {}) });
        data(p.body);
        return send({ t: 'end', id });
      case 'whole': {
        send({ t: 'head', id, status: 200 });
        let at = 0;
        for (const cut of [...p.cuts].sort((a, b) => a - b)) {
          data(p.body.slice(at, cut));
          at = Math.max(at, cut);
        }
        data(p.body.slice(at));
        return p.end ? send({ t: 'end', id }) : ws.terminate();
      }
      case 'stream':
        send({ t: 'head', id, status: 200 });
        for (const e of p.events) data(e);
        if (p.done) data('data: [DONE]\n\n');
        return p.end ? send({ t: 'end', id }) : ws.terminate();
      case 'fail':
        return send({ t: 'fail', id, message: p.message.slice(0, 2000) });
      case 'violate':
        return ws.send(p.frame);
      case 'drop':
        return ws.terminate();
      case 'silence':
        return;
    }
  }
}

test('a node answering anything: each client gets a reply or an error in its dialect, never a 500 nor a hang; the figures stay sane', async () => {
  test.setTimeout(Math.max(180_000, RUNS * 3 * 1_000));
  const dataDir = freshDataDir();
  // A silent node is given up on after 2 s (the upstream timeout), so that the run does not wait a minute for it.
  const server: RunningServer = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_UPSTREAM_TIMEOUT_MS: '2000' });
  const node = { stop: () => {} };
  try {
    const env = { TRIAD_DATA_DIR: dataDir };
    const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Wild']);
    const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
    const { partner_secret } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', 'Wild partner']);
    const wild = new WildNode(`${server.url.replace('http', 'ws')}/api/v1/node/connect`, partner_secret!);
    node.stop = () => wild.ws?.terminate();
    const served = async () => {
      const res = await fetch(`${server.url}/api/v1/models`, { headers: { authorization: `Bearer ${api_key}` } });
      return ((await res.json()) as { data: { id: string; providers?: { healthy: number } }[] }).data.find((m) => m.id === MODEL);
    };

    // A node in service, its provider priced (what it serves is billed and earned: the figures checked at the end).
    let nodes = 0;
    type Provider = { name: string; node: { partner_node_id: string } | null; health: { state: string } };
    const serving = async () => {
      await wild.connect(`wild-${++nodes}`);
      const provider = await until(
        'the node serving',
        async () =>
          ((await adminApi(server, 'GET', '/providers')).body.data as unknown as Provider[]).find(
            (p) => p.node?.partner_node_id === wild.id,
          ),
        (p) => p?.health.state === 'up',
      );
      const priced = await adminApi(server, 'PATCH', `/providers/${provider!.name}`, { price_per_1k: '0.002' });
      expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    };
    await serving();

    let asked = 0;
    // A node that broke too often is out of service for a while (503, its circuit open): the run goes on as another.
    let rotate = false;
    await fc.assert(
      fc.asyncProperty(plan, ask, async (p, a) => {
        if (rotate || !wild.open || !((await served())?.providers?.healthy ?? 0)) await serving();
        rotate = false;
        wild.plan = p;
        const { path, body } = requestOf(a);
        const started = Date.now();
        const res = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        asked++;
        rotate = res.status === 503;
        checkReply(a, res.status, text, `${a.api}${a.stream ? ' streamed' : ''} answered by ${JSON.stringify(p).slice(0, 300)}`);
        // A silent node is given up on at the upstream timeout (2 s); nothing takes longer.
        if (Date.now() - started > 10_000) throw new Error(`${a.api}: ${Date.now() - started} ms for ${JSON.stringify(p).slice(0, 200)}`);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(wild.opens).toBeGreaterThan(RUNS / 2); // the requests reached the node

    // The node's figures and the request log: numbers, never negative, never NaN.
    const decimal = /^\d+(\.\d+)?$/;
    const list = (await (
      await fetch(`${server.url}/api/v1/partner/nodes?secret=${partner_secret}&limit=100`, {
        headers: { authorization: `Bearer ${org_token}` },
      })
    ).json()) as { data: { entries: { external_id: string; unit_shared: string; usd_earned: string }[] } };
    const entries = list.data.entries.filter((e) => e.external_id.startsWith('wild-'));
    expect(entries.length).toBe(nodes);
    for (const e of entries) {
      expect(e.unit_shared).toMatch(decimal);
      expect(e.usd_earned).toMatch(decimal);
    }
    type Entry = { prompt_tokens: number; completion_tokens: number; cost: number; status: number };
    const log = await until(
      'the request log written',
      async () =>
        (
          (await (
            await fetch(`${server.url}/api/org/requests?limit=200`, { headers: { authorization: `Bearer ${org_token}` } })
          ).json()) as { data: { entries: Entry[] } }
        ).data.entries,
      (entries) => entries.length >= Math.min(asked, 200),
    );
    for (const e of log) {
      const sane =
        [e.prompt_tokens, e.completion_tokens].every((n) => Number.isSafeInteger(n) && n >= 0) && Number.isFinite(e.cost) && e.cost >= 0;
      expect(sane, JSON.stringify(e)).toBe(true);
    }
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    console.log(`node fuzz: seed ${SEED}, ${asked} requests, ${wild.opens} reached the node (${nodes} nodes)`);
  } finally {
    node.stop();
    await server.stop();
  }
});
