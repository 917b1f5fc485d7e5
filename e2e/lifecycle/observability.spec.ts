import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { runAdmin } from '../support/fixtures';
import { type CollectedSpan, type Collector, startCollector } from '../support/otlp-collector';
import { adminApi, startFake } from '../support/providers';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * Observability (design §18) as an operator sees it: traces exported over OTLP to a collector on a real
 * socket (both encodings), continuing the client's traceparent, down to the model server directly and
 * through a node's tunnel (the agent's own span joining); every log line of a request carrying its id;
 * the GenAI metrics; the request log and its tenancy.
 */
test.afterAll(removeDataDirs);

const TRACE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const PARENT = '1122334455667788';
const SECRET_PROMPT = 'the launch code is 0000';

const chat = async (server: RunningServer, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'fake-fixed', max_tokens: 8, messages: [{ role: 'user', content: SECRET_PROMPT }], ...body }),
  });
  return { status: res.status, requestId: res.headers.get('x-request-id'), text: await res.text() };
};

/** The spans of one trace once `count` of them arrived (the batch processor sends every 100 ms here). */
async function traceOf(collector: Collector, traceId: string, count: number): Promise<CollectedSpan[]> {
  await expect.poll(() => collector.spans.filter((s) => s.traceId === traceId).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  return collector.spans.filter((s) => s.traceId === traceId);
}
const one = (spans: CollectedSpan[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  expect(
    found.map((s) => s.name),
    `spans: ${spans.map((s) => s.name).join(', ')}`,
  ).toEqual([name]);
  return found[0]!;
};

async function setUp(protocol: 'http/protobuf' | 'http/json', extraEnv: Record<string, string> = {}) {
  const collector = await startCollector();
  const fake = await startFake(await freePort());
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_PROVIDER_PROBE_S: '1',
    TRIAD_GUIDE_DELAY_MS: '0',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_SERVICE_NAME: 'triad-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    TRIAD_LOG_FORMAT: 'json',
    ...extraEnv,
  });
  const env = { TRIAD_DATA_DIR: dataDir };
  const add = async (name: string, renames: Record<string, string>, extra: object = {}) =>
    expect(
      (await adminApi(server, 'POST', '/providers', { name, base_url: fake.url, renames, models: Object.keys(renames), ...extra })).status,
    ).toBe(201);
  const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Traced']);
  const { api_key, api_key_id } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '100000']);
  const stop = async () => {
    await server.stop();
    await fake.kill();
    await collector.close();
  };
  return { collector, fake, server, env, add, orgId: org_id!, orgToken: org_token!, key: api_key!, keyId: api_key_id!, stop };
}

test('a completion’s trace over http/protobuf: the client’s traceparent continued, GenAI attributes, two attempts on a failover, traceparent at the model server, no prompt text', async () => {
  test.setTimeout(90_000);
  const t = await setUp('http/protobuf');
  try {
    await t.add('fake', { 'fake-fixed': 'fake-fixed', 'm-flaky': 'fake-fixed' }, { price_prompt: '1', price_completion: '2' });
    await t.add('broken', { 'm-flaky': 'fake-error-500' });

    // A whole completion, under the client's own trace.
    const whole = await chat(t.server, t.key, {}, { traceparent: `00-${TRACE}-${PARENT}-01`, 'x-request-id': 'req-whole-1' });
    expect(whole.status, whole.text).toBe(200);
    expect(whole.requestId).toBe('req-whole-1');
    let spans = await traceOf(t.collector, TRACE, 3);
    expect(t.collector.contentTypes).toContain('application/x-protobuf');
    const server = one(spans, 'POST /api/v1/chat/completions');
    expect(server).toMatchObject({ kind: 2, parentSpanId: PARENT, service: 'triad-under-test' });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'triad.request_id': 'req-whole-1',
    });
    const genai = one(spans, 'chat fake-fixed');
    expect(genai.parentSpanId).toBe(server.spanId);
    expect(genai.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'fake-fixed',
      'gen_ai.request.max_tokens': 8,
      'gen_ai.provider.name': 'fake',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.model': 'fake-fixed',
      'triad.request_id': 'req-whole-1',
    });
    expect(genai.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(genai.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(String(genai.attributes['gen_ai.response.id'])).toMatch(/^upstream-/);
    expect(genai.attributes['triad.cost_usd']).toBeGreaterThan(0);
    const attempt = one(spans, 'attempt fake');
    expect(attempt).toMatchObject({ kind: 3, parentSpanId: genai.spanId });
    expect(attempt.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': t.fake.port,
      'triad.attempt.outcome': 'served',
    });
    // The model server got the attempt's span as its parent.
    const sent = (
      (await (await fetch(`http://127.0.0.1:${t.fake.port}/__log`)).json()) as {
        traceparents: { path: string; traceparent: string | null }[];
      }
    ).traceparents;
    expect(sent.map((s) => s.traceparent)).toContain(`00-${TRACE}-${attempt.spanId}-01`);
    // No prompt or reply text without TRIAD_TRACE_CONTENT=1.
    expect(JSON.stringify(spans)).not.toContain('launch code');
    expect(genai.attributes['gen_ai.input.messages']).toBeUndefined();

    // A stream: the time to its first chunk.
    const trace2 = TRACE.replace(/^a1/, 'b2');
    const streamed = await chat(t.server, t.key, { stream: true }, { traceparent: `00-${trace2}-${PARENT}-01` });
    expect(streamed.text).toContain('[DONE]');
    spans = await traceOf(t.collector, trace2, 3);
    const streamSpan = one(spans, 'chat fake-fixed');
    expect(streamSpan.attributes['gen_ai.request.stream']).toBe(true);
    expect(streamSpan.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    expect(streamSpan.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);

    // A failover: two attempts under one completion, the failed one an error.
    const trace3 = TRACE.replace(/^a1/, 'c3');
    const flaky = await chat(
      t.server,
      t.key,
      { model: 'm-flaky', provider: { order: ['broken', 'fake'] } },
      { traceparent: `00-${trace3}-${PARENT}-01` },
    );
    expect(flaky.status, flaky.text).toBe(200);
    spans = await traceOf(t.collector, trace3, 4);
    const failover = one(spans, 'chat m-flaky');
    const attempts = spans.filter((s) => s.parentSpanId === failover.spanId);
    expect(attempts.map((s) => [s.name, s.status, s.attributes['triad.attempt'], s.attributes['triad.attempt.outcome']])).toEqual([
      ['attempt broken', 2, 1, 'upstream_error'],
      ['attempt fake', 0, 2, 'served'],
    ]);
    expect(failover.attributes['gen_ai.provider.name']).toBe('fake');

    // A request without a traceparent starts a trace of its own; an error reply is an error span.
    const missing = await chat(t.server, t.key, { model: 'no-such-model' }, { 'x-request-id': 'req-missing' });
    expect(missing.status).toBe(404);
    expect(missing.requestId).toBe('req-missing'); // on errors too
    await expect.poll(() => t.collector.spans.find((s) => s.name === 'chat no-such-model')?.status, { timeout: 10_000 }).toBe(2);
    const failed = t.collector.spans.find((s) => s.name === 'chat no-such-model')!;
    expect(failed.attributes['error.type']).toBe('model_not_found');
    expect(failed.traceId).not.toBe(TRACE);
  } finally {
    await t.stop();
  }
});

test('over http/json with TRIAD_TRACE_CONTENT=1: prompt and reply in the GenAI span; embeddings traced; GenAI metrics; every log line of a request carries its id', async () => {
  test.setTimeout(90_000);
  const t = await setUp('http/json', { TRIAD_TRACE_CONTENT: '1', TRIAD_LOG_LEVEL: 'debug' });
  try {
    await t.add('fake', { 'fake-fixed': 'fake-fixed', 'fake-embed': 'fake-embed', 'm-flaky': 'fake-fixed' });
    await t.add('broken', { 'm-flaky': 'fake-error-500' });
    const r = await chat(t.server, t.key, {}, { traceparent: `00-${TRACE}-${PARENT}-01`, 'x-request-id': 'req-content-1' });
    expect(r.status).toBe(200);
    const spans = await traceOf(t.collector, TRACE, 3);
    expect(t.collector.contentTypes).toContain('application/json');
    const genai = one(spans, 'chat fake-fixed');
    expect(String(genai.attributes['gen_ai.input.messages'])).toContain(SECRET_PROMPT);
    expect(JSON.parse(String(genai.attributes['gen_ai.output.messages']))[0]).toMatchObject({ role: 'assistant', finish_reason: 'stop' });

    const embed = await fetch(`${t.server.url}/api/v1/embeddings`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.key}`,
        'content-type': 'application/json',
        traceparent: `00-${TRACE.replace(/^a1/, 'e5')}-${PARENT}-01`,
      },
      body: JSON.stringify({ model: 'fake-embed', input: 'two words' }),
    });
    expect(embed.status).toBe(200);
    const embedSpans = await traceOf(t.collector, TRACE.replace(/^a1/, 'e5'), 3);
    expect(one(embedSpans, 'embeddings fake-embed').attributes).toMatchObject({
      'gen_ai.operation.name': 'embeddings',
      'gen_ai.usage.input_tokens': 2,
    });
    const sent = (
      (await (await fetch(`http://127.0.0.1:${t.fake.port}/__log`)).json()) as {
        traceparents: { path: string; traceparent: string | null }[];
      }
    ).traceparents;
    expect(sent.find((s) => s.path === '/v1/embeddings')?.traceparent).toMatch(new RegExp(`^00-${TRACE.replace(/^a1/, 'e5')}-`));

    expect((await chat(t.server, t.key, { stream: true })).text).toContain('[DONE]');
    // The GenAI metrics, by model and provider.
    const metrics = await (await fetch(`${t.server.url}/api/metrics`)).text();
    expect(metrics).toMatch(
      /gen_ai_client_token_usage_count\{gen_ai_operation_name="chat",gen_ai_request_model="fake-fixed",gen_ai_provider_name="fake",gen_ai_token_type="input"\} 2/,
    );
    expect(metrics).toMatch(
      /gen_ai_server_request_duration_count\{gen_ai_operation_name="embeddings",gen_ai_request_model="fake-embed",gen_ai_provider_name="fake"\} 1/,
    );
    expect(metrics).toContain('# TYPE gen_ai_server_time_to_first_token histogram');

    // A request that fails over logs the failed attempt: that line and the access log's carry its id and trace.
    const trace4 = TRACE.replace(/^a1/, 'f6');
    const flaky = await chat(
      t.server,
      t.key,
      { model: 'm-flaky', provider: { order: ['broken', 'fake'] } },
      { traceparent: `00-${trace4}-${PARENT}-01`, 'x-request-id': 'req-flaky-1' },
    );
    expect(flaky.status).toBe(200);
    await expect
      .poll(() =>
        t.server
          .output()
          .split('\n')
          .some((l) => l.includes('"req-flaky-1"') && l.includes('"msg":"request"')),
      )
      .toBe(true);
    const lines = t.server
      .output()
      .split('\n')
      .filter((l) => l.includes('"req-flaky-1"'))
      .map((l) => JSON.parse(l) as { msg: string; reqId: string; traceId: string });
    expect(lines.map((l) => l.msg).sort()).toEqual(['provider attempt failed: trying another', 'request']);
    for (const l of lines) expect(l).toMatchObject({ reqId: 'req-flaky-1', traceId: trace4 });
  } finally {
    await t.stop();
  }
});

test('the request log: each completion’s record with its request id and trace, filters, cursor pages, an organization sees only its own, no prompt text', async () => {
  test.setTimeout(90_000);
  const t = await setUp('http/protobuf');
  try {
    await t.add('fake', { 'fake-fixed': 'fake-fixed', 'fake-echo': 'fake-echo' }, { price_prompt: '1', price_completion: '2' });
    const other = await runAdmin(t.env, ['org', 'create', '--name', 'Other']);
    const otherKey = (await runAdmin(t.env, ['apikey', 'create', '--org', other.org_id!, '--rpm', '100000'])).api_key!;
    const ok = await chat(t.server, t.key, { stream: true }, { 'x-request-id': 'log-stream-1', traceparent: `00-${TRACE}-${PARENT}-01` });
    expect(ok.status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await chat(t.server, t.key, { model: 'fake-echo' }, { 'x-request-id': `log-echo-${i}` })).status).toBe(200);
    expect((await chat(t.server, t.key, { model: 'nothing-here' }, { 'x-request-id': 'log-missing' })).status).toBe(404);
    expect((await chat(t.server, otherKey, {}, { 'x-request-id': 'log-other' })).status).toBe(200);

    const list = async (token: string, query = '') => {
      const res = await fetch(`${t.server.url}/api/org/requests${query}`, { headers: { authorization: `Bearer ${token}` } });
      return {
        status: res.status,
        body: (await res.json()) as { data: { entries: Record<string, unknown>[]; after: string | null }; error?: unknown },
      };
    };
    await expect.poll(async () => (await list(t.orgToken)).body.data.entries.length, { timeout: 10_000 }).toBe(5);
    const { entries } = (await list(t.orgToken)).body.data;
    expect(entries.map((e) => e.request_id)).toEqual(['log-missing', 'log-echo-2', 'log-echo-1', 'log-echo-0', 'log-stream-1']);
    const streamed = entries.at(-1)!;
    expect(streamed).toMatchObject({
      api_key_id: t.keyId,
      endpoint: '/api/v1/chat/completions',
      model: 'fake-fixed',
      provider: 'fake',
      status: 200,
      stream: true,
      error: null,
      trace_id: TRACE,
    });
    expect(streamed.prompt_tokens).toBeGreaterThan(0);
    expect(streamed.completion_tokens).toBeGreaterThan(0);
    expect(streamed.cost).toBeGreaterThan(0);
    expect(streamed.ttft_ms).toEqual(expect.any(Number));
    expect(streamed.latency_ms).toBeGreaterThanOrEqual(streamed.ttft_ms as number);
    expect(entries[0]).toMatchObject({ model: 'nothing-here', status: 404, error: 'model_not_found', provider: null, cost: 0 });
    expect(JSON.stringify(entries)).not.toContain('launch code');

    // Filters and cursor pages.
    expect((await list(t.orgToken, '?status=4xx')).body.data.entries.map((e) => e.request_id)).toEqual(['log-missing']);
    expect((await list(t.orgToken, '?status=error')).body.data.entries.map((e) => e.request_id)).toEqual(['log-missing']);
    expect((await list(t.orgToken, '?model=fake-echo')).body.data.entries).toHaveLength(3);
    expect((await list(t.orgToken, '?endpoint=/api/v1/chat/completions')).body.data.entries).toHaveLength(5);
    expect((await list(t.orgToken, '?endpoint=/api/v1/messages')).body.data.entries).toEqual([]);
    expect((await list(t.orgToken, `?request_id=log-echo-1&api_key_id=${t.keyId}`)).body.data.entries.map((e) => e.request_id)).toEqual([
      'log-echo-1',
    ]);
    expect((await list(t.orgToken, `?started_at=${Date.now() + 60_000}`)).body.data.entries).toEqual([]);
    const first = (await list(t.orgToken, '?limit=2')).body.data;
    expect(first.entries.map((e) => e.request_id)).toEqual(['log-missing', 'log-echo-2']);
    const second = (await list(t.orgToken, `?limit=2&after=${first.after}`)).body.data;
    expect(second.entries.map((e) => e.request_id)).toEqual(['log-echo-1', 'log-echo-0']);
    const last = (await list(t.orgToken, `?limit=2&after=${second.after}`)).body.data;
    expect(last).toMatchObject({ after: null });
    expect(last.entries.map((e) => e.request_id)).toEqual(['log-stream-1']);

    // Tenancy: the other organization sees its one request, never these; another's request id finds nothing.
    expect((await list(other.org_token!)).body.data.entries.map((e) => e.request_id)).toEqual(['log-other']);
    expect((await list(t.orgToken, '?request_id=log-other')).body.data.entries).toEqual([]);
    // Bad filters: 400 in the console's shape.
    for (const q of ['?status=abc', '?limit=0', '?after=bogus', '?started_at=yesterday']) {
      const bad = await list(t.orgToken, q);
      expect(bad.status, q).toBe(400);
      expect(bad.body.error, q).toMatchObject({ status: 400 });
    }
    expect((await list('not-a-token')).status).toBe(401);
  } finally {
    await t.stop();
  }
});

test('through a node’s tunnel: the agent passes the trace to its model server, and its own span joins the trace', async () => {
  test.setTimeout(90_000);
  const t = await setUp('http/json');
  const agentCollector = await startCollector();
  let agent: ReturnType<typeof spawn> | undefined;
  try {
    const { partner_secret } = await runAdmin(t.env, ['partner', 'create', '--org', t.orgId, '--name', 'Traced lab']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-partner-'));
    const file = path.join(dir, 'triad-node.mjs');
    fs.writeFileSync(file, Buffer.from(await (await fetch(`${t.server.url}/downloads/triad-node.mjs`)).arrayBuffer()));
    let out = '';
    const child = spawn(
      process.execPath,
      [file, '--server', t.server.url, '--node', 'gpu-traced', '--upstream', t.fake.url, '--models', 'fake-fixed'],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          TRIAD_PARTNER_SECRET: partner_secret!,
          OTEL_EXPORTER_OTLP_ENDPOINT: agentCollector.endpoint,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        } as unknown as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    agent = child;
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    await expect.poll(() => out, { timeout: 15_000 }).toContain('exporting traces');
    await expect.poll(async () => (await chat(t.server, t.key, {})).status, { timeout: 20_000, message: `agent output: ${out}` }).toBe(200);
    const trace = TRACE.replace(/^a1/, 'd4');
    const r = await chat(t.server, t.key, { stream: true }, { traceparent: `00-${trace}-${PARENT}-01` });
    expect(r.text).toContain('[DONE]');
    const spans = await traceOf(t.collector, trace, 3);
    const attempt = spans.find((s) => s.name.startsWith('attempt '))!;
    expect(attempt.attributes).toMatchObject({ 'triad.provider.kind': 'tunnel', 'server.address': 'node:gpu-traced' });
    // The agent's span: a child of Triad's attempt, in the same trace, exported by the agent.
    await expect.poll(() => agentCollector.spans.filter((s) => s.traceId === trace).length, { timeout: 10_000 }).toBe(1);
    const hop = agentCollector.spans.find((s) => s.traceId === trace)!;
    expect(hop).toMatchObject({ name: 'POST /chat/completions', kind: 3, parentSpanId: attempt.spanId, service: 'triad-node' });
    expect(hop.attributes).toMatchObject({ 'http.response.status_code': 200, 'triad.node.id': 'gpu-traced' });
    // …and the model server behind it got the agent's span as its parent.
    const sent = (
      (await (await fetch(`http://127.0.0.1:${t.fake.port}/__log`)).json()) as { traceparents: { traceparent: string | null }[] }
    ).traceparents;
    expect(sent.map((s) => s.traceparent)).toContain(`00-${trace}-${hop.spanId}-01`);
  } finally {
    agent?.kill('SIGKILL');
    await agentCollector.close();
    await t.stop();
  }
});
