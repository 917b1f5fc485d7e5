import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import type { APIRequestContext } from '@playwright/test';
import { generateText, streamText } from 'ai';
import { encode } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { UPSTREAM_URL } from '../../scripts/lib/test-env.mjs';
import { expect, test } from '../support/fixtures';
import { sseEvents } from '../support/sse';

const URL_ = '/api/v1/chat/completions';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const user = (text: string) => [{ role: 'user', content: [{ type: 'text', text }] }];

type Chunk = {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string }; finish_reason: string | null }[];
  usage?: Record<string, number>;
};

test.describe.configure({ mode: 'parallel' });

let apiKey: string;
test.beforeEach(async ({ admin, org }) => {
  apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '100'])).api_key!;
});

const post = (request: APIRequestContext, data: unknown, headers: Record<string, string> = auth(apiKey)) =>
  request.post(URL_, { headers, data: data as object });

test('401 invalid_api_key without a key, with an unknown key, and with a revoked key', async ({ request, admin, driver }) => {
  // Used, so that the server remembers it (a minute on the embedded database, 2 s on PostgreSQL), then revoked by
  // the CLI. On the embedded database the CLI goes through the server, which forgets it at once; on PostgreSQL
  // the CLI writes the database itself, and the server's entry lapses within its 2 s.
  const ask = (headers?: Record<string, string>) => post(request, { model: 'triad-guide', messages: user('hi') }, headers);
  expect((await ask()).status()).toBe(200);
  await admin(['apikey', 'revoke', '--key', apiKey]);
  if (driver === 'postgres') await expect.poll(async () => (await ask()).status(), { intervals: [250], timeout: 5000 }).toBe(401);
  for (const headers of [{}, auth('sk_live_nope'), auth(apiKey), { authorization: 'Basic abc def' }]) {
    const res = await ask(headers);
    expect(res.status()).toBe(401);
    expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key', message: expect.any(String) });
  }
});

test('triad-guide answers as a chat.completion, from the documentation, honest about what it is', async ({ request }) => {
  const res = await post(request, {
    model: 'triad-guide',
    messages: [{ role: 'system', content: 'Be brief.' }, ...user('How do I configure the rate limits?')],
  });
  expect(res.status()).toBe(200);
  expect(res.headers()['x-ratelimit-limit']).toBe('100');
  expect(res.headers()['x-ratelimit-remaining']).toBe('99');
  expect(Number(res.headers()['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  const body = await res.json();
  expect(body).toEqual({
    id: expect.stringMatching(/^chatcmpl-/),
    object: 'chat.completion',
    created: expect.any(Number),
    model: 'triad-guide',
    choices: [{ index: 0, message: { role: 'assistant', content: expect.any(String) }, finish_reason: 'stop' }],
    usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number), cost: 0 },
  });
  const content: string = body.choices[0].message.content;
  expect(content).toContain('not a language model');
  expect(content).toMatch(/TRIAD_DEFAULT_RPM|rate limit/i);
  expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  expect(body.usage.completion_tokens).toBeGreaterThan(20);

  // Content as a plain string gives the same, deterministic answer.
  const again = await (
    await post(request, {
      model: 'triad-guide',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'How do I configure the rate limits?' },
      ],
    })
  ).json();
  expect(again.choices[0].message.content).toBe(content);
});

test('usage is recorded per API key and model, with the client platform', async ({ request }) => {
  const a = await (
    await post(request, { model: 'triad-guide', messages: user('aliases') }, { ...auth(apiKey), 'sec-ch-ua-platform': '"Linux"' })
  ).json();
  const b = await (await post(request, { model: 'fake-echo', messages: user('hi') })).json();
  await (await post(request, { model: 'fake-echo', messages: user('hi'), stream: true })).text();
  const res = await request.get('/api/v1/usage', { headers: auth(apiKey) });
  expect(res.status()).toBe(200);
  expect((await res.json()).data).toEqual([
    { model: 'fake-echo', requests: 2, prompt_tokens: 22, completion_tokens: 4 },
    { model: 'triad-guide', requests: 1, prompt_tokens: a.usage.prompt_tokens, completion_tokens: a.usage.completion_tokens },
  ]);
  expect(b.usage.completion_tokens).toBe(2);
});

test('max_tokens cuts the reply with finish_reason length', async ({ request }) => {
  const body = await (await post(request, { model: 'triad-guide', messages: user('aliases'), max_tokens: 10 })).json();
  expect(body.choices[0].finish_reason).toBe('length');
  expect(body.usage.completion_tokens).toBeLessThanOrEqual(10);
  expect(body.usage.completion_tokens).toBeGreaterThan(0);
});

test('streaming: role chunk, content chunks with one id, a finish chunk, usage, then [DONE]', async ({ request }) => {
  const question = user('What does the admin CLI do?');
  const res = await post(request, { model: 'triad-guide', messages: question, stream: true, stream_options: { include_usage: true } });
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toMatch(/^text\/event-stream/);
  expect(res.headers()['cache-control']).toBe('no-cache, no-transform');
  expect(res.headers()['x-accel-buffering']).toBe('no');
  const text = await res.text();
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  const events = sseEvents(text);
  expect(events.at(-1)).toBe('[DONE]');
  const chunks = events.slice(0, -1) as Chunk[];
  const first = chunks[0]!;
  expect(first).toMatchObject({
    object: 'chat.completion.chunk',
    model: 'triad-guide',
    choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }],
  });
  for (const c of chunks) expect([c.id, c.created]).toEqual([first.id, first.created]);
  const usage = chunks.at(-1)!;
  expect(usage.choices).toEqual([]);
  expect(usage.usage).toEqual({
    prompt_tokens: expect.any(Number),
    completion_tokens: expect.any(Number),
    total_tokens: expect.any(Number),
    cost: 0,
  });
  const finish = chunks.at(-2)!;
  expect(finish.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'stop' }]);
  const content = chunks
    .slice(1, -2)
    .map((c) => c.choices[0]!.delta.content)
    .join('');
  expect(chunks.slice(1, -2).length).toBeGreaterThan(10);
  const whole = await (await post(request, { model: 'triad-guide', messages: question })).json();
  expect(content).toBe(whole.choices[0].message.content);
  expect(usage.usage!.completion_tokens).toBe(whole.usage.completion_tokens);
});

test('bad requests get 400 invalid_request_error naming the field', async ({ request }) => {
  const cases: [unknown, string | undefined][] = [
    [{ messages: user('x') }, 'model'],
    [{ model: 'triad-guide' }, 'messages'],
    [{ model: 'triad-guide', messages: [] }, 'messages'],
    [{ model: 'triad-guide', messages: [{ role: 'robot', content: 'x' }] }, 'messages.0.role'],
    // A part of an unknown type: named down to the part's field (content is text or a list of parts).
    [{ model: 'triad-guide', messages: [{ role: 'user', content: [{ type: 'image', url: 'x' }] }] }, 'messages.0.content.0.type'],
    [{ model: 'triad-guide', messages: [{ role: 'user', content: 42 }] }, 'messages.0.content'],
    [{ model: 'triad-guide', messages: user('x'), temperature: 3 }, 'temperature'],
    [{ model: 'triad-guide', messages: user('x'), stream: 'yes' }, 'stream'],
    [{ model: 'triad-guide', messages: user('x'), max_tokens: 0 }, 'max_tokens'],
  ];
  for (const [data, param] of cases) {
    const res = await post(request, data);
    expect(res.status(), JSON.stringify(data)).toBe(400);
    expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
  }
  const broken = await request.post(URL_, {
    headers: { ...auth(apiKey), 'content-type': 'application/json' },
    data: Buffer.from('{"model":'),
  });
  expect(broken.status()).toBe(400);
  expect((await broken.json()).error.message).toMatch(/not valid JSON/);
  const huge = await request.post(URL_, {
    headers: { ...auth(apiKey), 'content-type': 'application/json' },
    // Past the chat route's own limit (TRIAD_MAX_CHAT_BODY_BYTES, 8 MiB: it carries images as data: URLs).
    data: Buffer.from(JSON.stringify({ model: 'triad-guide', messages: user('x'.repeat(8_500_000)) })),
  });
  expect(huge.status()).toBe(413);
  expect((await huge.json()).error).toMatchObject({ code: 'request_too_large' });
});

test('an unknown model is 404 model_not_found', async ({ request }) => {
  const res = await post(request, { model: 'gpt-17', messages: user('x') });
  expect(res.status()).toBe(404);
  expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
});

test.describe('upstream', () => {
  test('models are discovered from the upstream and listed with triad-guide', async ({ request }) => {
    const res = await request.get('/api/v1/models', { headers: auth(apiKey) });
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body.object).toBe('list');
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(['triad-guide', 'fake-echo', 'fake-slow']));
    expect(body.data[0]).toEqual({ id: 'triad-guide', object: 'model', created: expect.any(Number), owned_by: 'triad' });
    // What the model server's list says: its owner, and the context length where it says one (vLLM's
    // max_model_len for fake-echo, OpenRouter's context_length for fake-agent, none for fake-slow).
    const listed = (id: string) => body.data.find((m: { id: string }) => m.id === id);
    expect(listed('fake-echo')).toMatchObject({ owned_by: 'fake', context_length: 32768 });
    expect(listed('fake-agent')).toMatchObject({ owned_by: 'fake', context_length: 131072 });
    expect(listed('fake-slow').owned_by).toBe('fake');
    expect(listed('fake-slow')).not.toHaveProperty('context_length');
    expect((await request.get('/api/v1/models')).status()).toBe(401);
    // One model by its id (OpenAI's retrieve), as the list has it; an unknown one 404 model_not_found.
    const one = await request.get('/api/v1/models/fake-echo', { headers: auth(apiKey) });
    expect(await one.json()).toEqual(body.data.find((m: { id: string }) => m.id === 'fake-echo'));
    const none = await request.get('/api/v1/models/no-such-model', { headers: auth(apiKey) });
    expect(none.status()).toBe(404);
    expect((await none.json()).error.code).toBe('model_not_found');
  });

  test('a reply passes through with our id and the upstream usage, streaming or not', async ({ request }) => {
    const body = await (
      await post(request, {
        model: 'fake-echo',
        messages: [
          { role: 'system', content: 's' },
          { role: 'user', content: 'hello there' },
          { role: 'assistant', content: 'a' },
          { role: 'user', content: 'how are you' },
        ],
      })
    ).json();
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.choices[0].message.content).toBe('Echo: how are you');
    expect(body.usage).toEqual({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15, cost: 0 }); // `default` is free
    const text = await (
      await post(request, { model: 'fake-echo', messages: user('one two'), stream: true, stream_options: { include_usage: true } })
    ).text();
    const chunks = sseEvents(text).slice(0, -1) as Chunk[];
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Echo: one two');
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
    expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14, cost: 0 });
  });

  test('usage is counted with the tokenizer when the upstream does not report it', async ({ request }) => {
    const prompt = 'count these words please, all of them, with a real tokenizer';
    const body = await (await post(request, { model: 'fake-no-usage', messages: user(prompt) })).json();
    expect(body.choices[0].message.content).toBe(`Echo: ${prompt}`);
    // OpenAI's framing: 3 tokens for the reply, 4 per message, plus the text's own tokens.
    expect(body.usage).toEqual({
      prompt_tokens: 7 + encode(prompt).length,
      completion_tokens: encode(`Echo: ${prompt}`).length,
      total_tokens: 7 + encode(prompt).length + encode(`Echo: ${prompt}`).length,
      cost: 0,
    });
  });

  test('a prompt quoting a special token (<|endoftext|>) is counted as the text it is, not refused', async ({ request }) => {
    const prompt = 'what does <|endoftext|> mean, and <|im_start|>?';
    const count = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;
    const res = await post(request, { model: 'fake-no-usage', messages: user(prompt) });
    expect(res.status()).toBe(200);
    expect((await res.json()).usage).toEqual({
      prompt_tokens: 7 + count(prompt),
      completion_tokens: count(`Echo: ${prompt}`),
      total_tokens: 7 + count(prompt) + count(`Echo: ${prompt}`),
      cost: 0,
    });
  });

  test('a prompt of one 300 000-letter word is counted at once (the merge is not quadratic: it held the server for a minute)', async ({
    request,
  }) => {
    const word = 'a'.repeat(300_000);
    const res = await post(request, { model: 'fake-no-usage', messages: user(word) });
    expect(res.status()).toBe(200);
    // Eight a's are one o200k token (lib/chat/tokens.test.ts checks runs of them against gpt-tokenizer).
    expect((await res.json()).usage).toMatchObject({ prompt_tokens: 7 + 300_000 / 8 });
  });

  test('an upstream that fails: 502 before the first byte, an error event after it', async ({ request }) => {
    const crashed = await post(request, { model: 'fake-error-500', messages: user('x') });
    expect(crashed.status()).toBe(502);
    expect((await crashed.json()).error).toMatchObject({
      type: 'api_error',
      code: 'upstream_error',
      message: expect.stringContaining('the model crashed'),
    });

    const cut = await post(request, { model: 'fake-midstream-fail', messages: user('a b c d e f'), stream: true });
    expect(cut.status()).toBe(200);
    const events = sseEvents(await cut.text());
    expect(events.at(-1)).toBe('[DONE]');
    const error = events.at(-2) as { error: { type: string; code: string } };
    expect(error.error).toMatchObject({ type: 'api_error', code: expect.stringMatching(/^upstream_/) });
    expect((events.slice(1, -2) as Chunk[]).map((c) => c.choices[0]!.delta.content).join('')).toBe('Echo: a ');

    const cutWhole = await post(request, { model: 'fake-midstream-fail', messages: user('a b c d') });
    expect(cutWhole.status()).toBe(502);
  });

  test('a client that disconnects cancels the upstream request', async ({ baseURL }) => {
    const marker = `abort-${Date.now()}-${Math.random()}`;
    const controller = new AbortController();
    const res = await fetch(`${baseURL}${URL_}`, {
      method: 'POST',
      headers: { ...auth(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-slow', messages: user(marker), stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let received = '';
    while (!received.includes('w1 ')) received += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await expect
      .poll(async () => ((await (await fetch(`${UPSTREAM_URL.replace('/v1', '')}/__log`)).json()) as { aborted: string[] }).aborted, {
        timeout: 5000,
      })
      .toContain(marker);
    await new Promise((r) => setTimeout(r, 500));
    const log = (await (await fetch(`${UPSTREAM_URL.replace('/v1', '')}/__log`)).json()) as { completed: string[] };
    expect(log.completed).not.toContain(marker);
  });
});

test('rate limit: N+k concurrent requests at limit N → exactly N succeed, the rest 429 with headers', async ({ request, admin, org }) => {
  const { api_key } = await admin(['apikey', 'create', '--org', org.id, '--rpm', '5']);
  const results = await Promise.all(
    Array.from({ length: 8 }, () => post(request, { model: 'triad-guide', messages: user('hi'), max_tokens: 1 }, auth(api_key!))),
  );
  const ok = results.filter((r) => r.status() === 200);
  const limited = results.filter((r) => r.status() === 429);
  expect(ok).toHaveLength(5);
  expect(limited).toHaveLength(3);
  for (const r of limited) {
    expect(r.headers()['x-ratelimit-limit']).toBe('5');
    expect(r.headers()['x-ratelimit-remaining']).toBe('0');
    expect(Number(r.headers()['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await r.json()).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
  }
  expect(ok.map((r) => Number(r.headers()['x-ratelimit-remaining'])).sort()).toEqual([0, 1, 2, 3, 4]);
});

test.describe('real clients', () => {
  test('the official openai client: create, stream, usage and typed errors', async ({ baseURL, admin, org }) => {
    const client = new OpenAI({ apiKey, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'fake-echo', messages: [{ role: 'user', content: 'from the sdk' }] });
    expect(completion.choices[0]!.message.content).toBe('Echo: from the sdk');
    expect(completion.usage?.total_tokens).toBe(15);
    // What it cost (design §17), beside the tokens, as OpenRouter's clients read it: the default provider is free.
    expect((completion.usage as OpenAI.CompletionUsage & { cost?: number }).cost).toBe(0);

    const stream = await client.chat.completions.create({
      model: 'triad-guide',
      messages: [{ role: 'user', content: 'aliases' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toContain('not a language model');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect((usage as OpenAI.CompletionUsage & { cost?: number }).cost).toBe(0);

    await expect(
      new OpenAI({ apiKey: 'sk_live_wrong', baseURL: `${baseURL}/api/v1`, maxRetries: 0 }).chat.completions.create({
        model: 'triad-guide',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await expect(client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const { api_key } = await admin(['apikey', 'create', '--org', org.id, '--rpm', '1']);
    const limited = new OpenAI({ apiKey: api_key!, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
    await limited.chat.completions.create({ model: 'triad-guide', messages: [{ role: 'user', content: 'x' }], max_tokens: 1 });
    const err = await limited.chat.completions
      .create({ model: 'triad-guide', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('rate_limit_exceeded');
  });

  test("the Vercel AI SDK's OpenAI-compatible provider: generate and stream", async ({ baseURL }) => {
    const triad = createOpenAICompatible({ name: 'triad', baseURL: `${baseURL}/api/v1`, apiKey, includeUsage: true });
    const { text, usage } = await generateText({ model: triad('fake-echo'), prompt: 'via the ai sdk', maxRetries: 0 });
    expect(text).toBe('Echo: via the ai sdk');
    expect(usage.totalTokens).toBe(16); // 11 prompt tokens + 5 words, as the upstream reported
    const result = streamText({ model: triad('triad-guide'), prompt: 'statistics', maxRetries: 0 });
    let streamed = '';
    for await (const part of result.textStream) streamed += part;
    expect(streamed).toContain('not a language model');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  // Streams that end in the same moment as their last chunks (an upstream that answers at once) and
  // streams that run for a while: each client must get the whole text (a stream cut before
  // `data: [DONE]` reads as an empty or partial text, or as an error).
  const streamed = [
    { model: 'fake-instant', prompt: 'x', text: (t: string) => expect(t).toBe('ok') },
    { model: 'fake-echo', prompt: 'one two three', text: (t: string) => expect(t).toBe('Echo: one two three') },
    { model: 'triad-guide', prompt: 'How do I run the tests?', text: (t: string) => expect(t).toContain('not a language model') },
  ];

  test('every streamed reply arrives whole: openai, the AI SDK and LangChain', async ({ baseURL }) => {
    const openai = new OpenAI({ apiKey, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
    const triad = createOpenAICompatible({ name: 'triad', baseURL: `${baseURL}/api/v1`, apiKey });
    for (const { model, prompt, text } of streamed) {
      let viaOpenAI = '';
      let finish: string | null | undefined;
      for await (const chunk of await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: prompt }],
        stream: true,
      })) {
        viaOpenAI += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      text(viaOpenAI);
      expect(finish, model).toBe('stop');

      const result = streamText({ model: triad(model), prompt, maxRetries: 0 });
      let viaAiSdk = '';
      for await (const part of result.textStream) viaAiSdk += part;
      text(viaAiSdk);
      expect(await result.finishReason, model).toBe('stop');

      const langchain = new ChatOpenAI({ model, apiKey, configuration: { baseURL: `${baseURL}/api/v1` }, maxRetries: 0, streaming: true });
      let viaLangChain = '';
      for await (const chunk of await langchain.stream(prompt)) viaLangChain += typeof chunk.content === 'string' ? chunk.content : '';
      text(viaLangChain);
      expect(viaLangChain).toBe(viaOpenAI);
    }
  });
});
