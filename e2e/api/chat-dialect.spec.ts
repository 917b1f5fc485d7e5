import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import type { APIRequestContext } from '@playwright/test';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { encode } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { UPSTREAM_PORT } from '../../scripts/lib/test-env.mjs';
import { expect, test } from '../support/fixtures';
import { sseEvents } from '../support/sse';

/*
 * The chat dialect beyond text (design §13) through Triad, against the fake model server's fake-agent
 * over a real socket: what the model server receives (everything the client sent, the model name and
 * Triad's usage request aside), tool calls whole and streamed chunk for chunk, tool results sent
 * back, structured output, images, reasoning, several choices, log probabilities, refusals; what
 * triad-guide and providers that declared their capabilities refuse; a model server's own 400.
 */
const URL_ = '/api/v1/chat/completions';
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const unique = (what: string) => `${what} ${Date.now()}-${Math.random().toString(36).slice(2)}`;

type Chunk = {
  id: string;
  model: string;
  choices: {
    index: number;
    delta: {
      role?: string;
      content?: string | null;
      reasoning_content?: string;
      tool_calls?: { index: number; id?: string; type?: string; function: { name?: string; arguments?: string } }[];
    };
    logprobs?: unknown;
    finish_reason: string | null;
  }[];
  usage?: Record<string, unknown>;
};

/** The request bodies the fake model server received whose last user message contains `marker`. */
type UpstreamLog = { requests: Record<string, unknown>[]; raw: string[] };
const upstreamLog = async () => (await (await fetch(`http://127.0.0.1:${UPSTREAM_PORT}/__log`)).json()) as UpstreamLog;
async function received(marker: string): Promise<Record<string, unknown>[]> {
  return (await upstreamLog()).requests.filter((b) => JSON.stringify(b.messages).includes(marker));
}
/** The request texts the model server received, byte for byte, that hold `marker`. */
async function receivedText(marker: string): Promise<string[]> {
  return (await upstreamLog()).raw.filter((t) => t.includes(marker));
}

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] },
  },
};

test.describe.configure({ mode: 'parallel' });

let apiKey: string;
test.beforeEach(async ({ admin, org }) => {
  apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '200'])).api_key!;
});
const post = (request: APIRequestContext, data: unknown) => request.post(URL_, { headers: auth(apiKey), data: data as object });

test('the model server receives every field the client sent, as sent (model and the usage request aside)', async ({ request }) => {
  const marker = unique('fields');
  const sent = {
    model: 'fake-agent',
    messages: [
      { role: 'developer', content: 'Answer tersely.', name: 'ops' },
      { role: 'user', content: [{ type: 'text', text: marker, cache_control: { type: 'ephemeral' } }] },
    ],
    tools: [weather],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    parallel_tool_calls: false,
    logprobs: true,
    top_logprobs: 2,
    max_completion_tokens: 64,
    presence_penalty: 0.5,
    frequency_penalty: -0.5,
    logit_bias: { '50256': -100 },
    user: 'user-7',
    metadata: { trace: 'abc' },
    seed: 7,
    reasoning_effort: 'low',
    x_vendor_option: { keep: ['this', 1] },
  };
  const res = await post(request, sent);
  expect(res.status(), await res.text()).toBe(200);
  const [got] = await received(marker);
  expect(got).toEqual(sent);

  // Streamed: the same, plus Triad's own request for usage (which the client did not ask for, so it gets none).
  const streamMarker = unique('fields streamed');
  const streamed = {
    ...sent,
    messages: [{ role: 'user', content: streamMarker }],
    stream: true,
    stream_options: { include_obfuscation: false },
  };
  const text = await (await post(request, streamed)).text();
  const [gotStreamed] = await received(streamMarker);
  expect(gotStreamed).toEqual({ ...streamed, stream_options: { include_obfuscation: false, include_usage: true } });
  const chunks = sseEvents(text).slice(0, -1) as Chunk[];
  expect(chunks.filter((c) => c.usage)).toEqual([]);
  expect(chunks.every((c) => c.choices.length > 0)).toBe(true);
});

test("the client's bytes reach the model server as they are, and the server's reach the client but for id and model", async ({
  request,
}) => {
  // A request written by hand: spaces, an unusual key order, an escape. Nothing in it changes, so it goes as it is.
  const marker = unique('bytes');
  const text = `{ "messages" : [ {"content": "${marker} caf\\u00e9", "role":"user"} ],\n "model":"fake-agent", "temperature": 0.50 }`;
  const res = await request.post(URL_, { headers: { ...auth(apiKey), 'content-type': 'application/json' }, data: text });
  expect(res.status(), await res.text()).toBe(200);
  expect(await receivedText(marker)).toEqual([text]);
  // The reply as the server wrote it (ASCII-only JSON, as Python servers write it), with Triad's id and the client's model.
  const reply = await res.text();
  expect(reply).toContain(`"content":"Echo: ${marker} caf\\u00e9"`);
  expect(reply).toMatch(/^\{"id":"chatcmpl-[A-Za-z0-9_-]+","object":"chat.completion","created":\d+,"model":"fake-agent","choices":/);

  // Streamed without a usage request: Triad's own is added at the end, the rest as sent; chunks as written.
  const streamMarker = unique('bytes streamed');
  const streamText = `{"model":"fake-agent","stream":true,"messages":[{"role":"user","content":"${streamMarker} \\u00fcber"}]}`;
  const streamed = await (
    await request.post(URL_, { headers: { ...auth(apiKey), 'content-type': 'application/json' }, data: streamText })
  ).text();
  expect(await receivedText(streamMarker)).toEqual([`${streamText.slice(0, -1)},"stream_options":{"include_usage":true}}`]);
  expect(streamed).toContain('\\u00fcber');
  const chunks = sseEvents(streamed).slice(0, -1) as Chunk[];
  expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  expect(chunks.every((c) => c.id.startsWith('chatcmpl-') && c.model === 'fake-agent')).toBe(true);
  expect(chunks.some((c) => c.usage)).toBe(false);
});

test('a tool call, whole: finish_reason tool_calls, the call with its id, name and JSON arguments, our id', async ({ request }) => {
  const body = await (
    await post(request, { model: 'fake-agent', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weather] })
  ).json();
  expect(body.id).toMatch(/^chatcmpl-/);
  expect(body.model).toBe('fake-agent');
  expect(body.system_fingerprint).toBe('fp_fake');
  const choice = body.choices[0];
  expect(choice.finish_reason).toBe('tool_calls');
  expect(choice.message.content).toBeNull();
  expect(choice.message.tool_calls).toEqual([
    { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"city","days":1}' } },
  ]);
  expect(body.usage).toEqual({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16, cost: 0 });
});

test('a tool call, streamed chunk for chunk: id and name first, then argument fragments; usage when asked', async ({ request }) => {
  const text = await (
    await post(request, {
      model: 'fake-agent',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [weather],
      stream: true,
      stream_options: { include_usage: true },
    })
  ).text();
  const events = sseEvents(text);
  expect(events.at(-1)).toBe('[DONE]');
  const chunks = events.slice(0, -1) as Chunk[];
  expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
  expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
  const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  expect(calls[0]).toEqual({
    index: 0,
    id: expect.stringMatching(/^call_/),
    type: 'function',
    function: { name: 'get_weather', arguments: '' },
  });
  const fragments = calls.slice(1).map((c) => c.function.arguments);
  expect(fragments.length).toBeGreaterThan(2); // passed on as the server cut them, not joined
  expect(fragments.join('')).toBe('{"city":"city","days":1}');
  expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
  expect(chunks.at(-1)!.choices).toEqual([]);
  expect(chunks.at(-1)!.usage).toEqual({ prompt_tokens: 11, completion_tokens: 5, total_tokens: 16, cost: 0 });
});

test('the tool result goes back: an assistant message with content null and tool_calls, then a tool message', async ({ request }) => {
  const marker = unique('tool result');
  const res = await post(request, {
    model: 'fake-agent',
    tools: [weather],
    messages: [
      { role: 'user', content: marker },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21 °C' },
    ],
  });
  expect(res.status(), await res.text()).toBe(200);
  const body = await res.json();
  expect(body.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Tool said: sunny, 21 °C' }, finish_reason: 'stop' });
  expect((await received(marker))[0]!.messages).toEqual([
    { role: 'user', content: marker },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","days":1}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny, 21 °C' },
  ]);
});

test('structured output: a JSON schema and JSON mode reach the model server and come back as JSON', async ({ request }) => {
  const schema = {
    type: 'object',
    properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['name', 'age', 'tags'],
    additionalProperties: false,
  };
  const withSchema = await (
    await post(request, {
      model: 'fake-agent',
      messages: [{ role: 'user', content: 'Describe someone' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } },
    })
  ).json();
  expect(JSON.parse(withSchema.choices[0].message.content)).toEqual({ name: 'name', age: 1, tags: ['tags'] });
  const jsonMode = await (
    await post(request, { model: 'fake-agent', messages: [{ role: 'user', content: 'as json' }], response_format: { type: 'json_object' } })
  ).json();
  expect(JSON.parse(jsonMode.choices[0].message.content)).toEqual({ echo: 'as json' });
});

test('images by data: and https URLs reach a model that sees; a URL of another scheme is refused with 400', async ({ request }) => {
  const png = `data:image/png;base64,${Buffer.from('not really a png').toString('base64')}`;
  const res = await post(request, {
    model: 'fake-agent',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: png, detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
    ],
  });
  expect(res.status(), await res.text()).toBe(200);
  expect((await res.json()).choices[0].message.content).toBe('I see 2 image(s): data:image/png;base64,, https://example.com/ca');
  const bad = await post(request, {
    model: 'fake-agent',
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }],
  });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error).toMatchObject({ code: 'invalid_request', param: 'messages.0.content.0.image_url.url' });
});

test('reasoning, several choices, log probabilities and refusals pass through, whole and streamed', async ({ request }) => {
  const ask = { model: 'fake-agent', messages: [{ role: 'user', content: 'two words' }], reasoning_effort: 'high', n: 2, logprobs: true };
  const whole = await (await post(request, ask)).json();
  expect(whole.choices).toHaveLength(2);
  expect(whole.choices[1]).toMatchObject({
    index: 1,
    message: { content: 'Echo: two words', reasoning_content: 'Thinking (high) about it.' },
    logprobs: { content: [{ token: 'Echo: two words', logprob: -0.25 }] },
  });
  expect(whole.usage.completion_tokens_details).toEqual({ reasoning_tokens: 4 });

  const chunks = sseEvents(await (await post(request, { ...ask, stream: true, stream_options: { include_usage: true } })).text()).slice(
    0,
    -1,
  ) as Chunk[];
  const of = (index: number, field: 'content' | 'reasoning_content') =>
    chunks.flatMap((c) => c.choices.filter((ch) => ch.index === index).map((ch) => ch.delta[field] ?? '')).join('');
  expect([of(0, 'reasoning_content'), of(0, 'content'), of(1, 'content')]).toEqual([
    'Thinking (high) about it.',
    'Echo: two words',
    'Echo: two words',
  ]);
  expect(chunks.find((c) => c.choices[0]?.delta.content === 'Echo: ')!.choices[0]!.logprobs).toEqual({
    content: [{ token: 'Echo: ', logprob: -0.25, bytes: null, top_logprobs: [] }],
  });
  expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens_details: { reasoning_tokens: 4 } });

  const refused = await (await post(request, { model: 'fake-agent', messages: [{ role: 'user', content: 'please refuse this' }] })).json();
  expect(refused.choices[0].message).toMatchObject({ content: null, refusal: "I can't help with that." });
});

test("usage: the model server's when it reports it, else Triad counts tool names, arguments and reasoning", async ({ request }) => {
  for (const model of ['fake-agent', 'fake-agent-no-usage'])
    for (const stream of [false, true])
      await (
        await post(request, { model, messages: [{ role: 'user', content: 'weather' }], tools: [weather], reasoning_effort: 'low', stream })
      ).text();
  const counted = encode('Thinking (low) about it.').length + encode('get_weather').length + encode('{"city":"city","days":1}').length;
  const usage = await (await request.get('/api/v1/usage', { headers: auth(apiKey) })).json();
  expect(usage.data).toEqual([
    { model: 'fake-agent', requests: 2, prompt_tokens: 22, completion_tokens: 18 },
    { model: 'fake-agent-no-usage', requests: 2, prompt_tokens: 2 * (7 + encode('weather').length), completion_tokens: 2 * counted },
  ]);
});

test('triad-guide refuses what it cannot do with 400 unsupported_parameter naming the field, never plain text', async ({ request }) => {
  const user = [{ role: 'user', content: 'hello' }];
  for (const [extra, param] of [
    [{ tools: [weather], tool_choice: 'required' }, 'tools'],
    [{ tools: [weather] }, 'tools'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } } }, 'response_format'],
    [{ response_format: { type: 'json_object' } }, 'response_format'],
    [{ logprobs: true }, 'logprobs'],
    [{ n: 2 }, 'n'],
    [
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'x' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
        ],
      },
      'messages.0.content.1',
    ],
  ] as const) {
    const res = await post(request, { model: 'triad-guide', messages: user, ...extra });
    expect(res.status(), JSON.stringify(extra)).toBe(400);
    expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_parameter', param });
  }
  // Tools it is told not to call are no reason to refuse.
  const none = await post(request, { model: 'triad-guide', messages: user, tools: [weather], tool_choice: 'none' });
  expect(none.status()).toBe(200);
});

test("a model server's own 400 about the request is the client's: passed on with its message, not tried again", async ({ request }) => {
  const marker = unique('the server says no');
  for (let i = 0; i < 4; i++) {
    const res = await post(request, { model: 'fake-agent', messages: [{ role: 'user', content: marker }], x_reject: true });
    expect(res.status()).toBe(400);
    expect((await res.json()).error).toMatchObject({
      type: 'invalid_request_error',
      message: 'The model server refused the request: x_reject: this server does not take that field',
    });
  }
  // One request each (never failed over), and the provider is still in service for others.
  expect(await received(marker)).toHaveLength(4);
  expect((await post(request, { model: 'fake-agent', messages: [{ role: 'user', content: 'still there?' }] })).status()).toBe(200);
});

test('providers that declared their capabilities: a request that needs one skips those without it; none left → 400', async ({
  request,
  admin,
}) => {
  const model = `dialect-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const upstream = `http://127.0.0.1:${UPSTREAM_PORT}/v1`;
  const add = (name: string, capabilities: string) =>
    admin([
      'provider',
      'add',
      '--name',
      name,
      '--base-url',
      upstream,
      '--models',
      model,
      '--renames',
      `${model}=fake-agent`,
      '--capabilities',
      capabilities,
    ]);
  await add(`${model}-text`, 'none');
  const listed = await admin(['provider', 'list']);
  const text = (listed.providers as { name: string; capabilities: string[] | null }[]).find((p) => p.name === `${model}-text`)!;
  expect(text.capabilities).toEqual([]);

  const ask = (extra: object) => post(request, { model, messages: [{ role: 'user', content: 'Weather?' }], ...extra });
  await expect.poll(async () => (await ask({})).status(), { timeout: 15_000 }).toBe(200);
  const refused = await ask({ tools: [weather] });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error).toMatchObject({ code: 'unsupported_parameter', param: 'tools' });

  await add(`${model}-tools`, 'tools,json_schema');
  await expect.poll(async () => (await ask({ tools: [weather] })).status(), { timeout: 15_000 }).toBe(200);
  for (let i = 0; i < 4; i++) {
    const res = await ask({ tools: [weather] });
    expect(res.headers()['x-triad-provider']).toBe(`${model}-tools`);
    const body = await res.json();
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.model).toBe(model); // the client's name, though the server's is fake-agent
  }
  const vision = await ask({
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
  });
  expect(vision.status()).toBe(400);
  expect((await vision.json()).error).toMatchObject({ code: 'unsupported_parameter', param: 'messages.0.content.0' });
  for (const name of [`${model}-text`, `${model}-tools`]) await admin(['provider', 'remove', name]);
});

test.describe('real clients with tools and structured output', () => {
  const city = z.object({ city: z.string(), days: z.number().int() });

  test('the Vercel AI SDK: generateText and streamText run a tool loop of two steps', async ({ baseURL }) => {
    const triad = createOpenAICompatible({ name: 'triad', baseURL: `${baseURL}/api/v1`, apiKey, includeUsage: true });
    const calls: unknown[] = [];
    const tools = {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: city,
        execute: async (input) => {
          calls.push(input);
          return `sunny in ${input.city}`;
        },
      }),
    };
    const generated = await generateText({
      model: triad('fake-agent'),
      prompt: 'Weather?',
      tools,
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(generated.steps).toHaveLength(2);
    expect(generated.steps[0]!.finishReason).toBe('tool-calls');
    expect(calls).toEqual([{ city: 'city', days: 1 }]);
    expect(generated.text).toBe('Tool said: sunny in city');
    expect(generated.finishReason).toBe('stop');

    const streamed = streamText({ model: triad('fake-agent'), prompt: 'Weather?', tools, stopWhen: stepCountIs(2), maxRetries: 0 });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    expect(text).toBe('Tool said: sunny in city');
    expect(await streamed.steps).toHaveLength(2);
    expect(calls).toHaveLength(2);
    expect((await streamed.totalUsage).inputTokens).toBe(22);
  });

  test('the openai SDK: a streamed tool call assembled by chat.completions.stream, and parse with a zod response format', async ({
    baseURL,
  }) => {
    const client = new OpenAI({ apiKey, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: 'fake-agent',
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
      tools: [weather as OpenAI.ChatCompletionTool],
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"city","days":1}' });
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'city', days: 1 });

    const answered = await client.chat.completions.create({
      model: 'fake-agent',
      messages: [
        { role: 'user', content: 'Weather in Rome?' },
        final.choices[0]!.message as OpenAI.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: call.id, content: 'rain' },
      ],
      tools: [weather as OpenAI.ChatCompletionTool],
    });
    expect(answered.choices[0]!.message.content).toBe('Tool said: rain');

    const person = z.object({ name: z.string(), age: z.number().int(), tags: z.array(z.string()) });
    const parsed = await client.chat.completions.parse({
      model: 'fake-agent',
      messages: [{ role: 'user', content: 'Describe someone' }],
      response_format: zodResponseFormat(person, 'person'),
    });
    expect(parsed.choices[0]!.message.parsed).toEqual({ name: 'name', age: 1, tags: ['tags'] });
  });

  test('LangChain: bindTools gives tool calls, withStructuredOutput a parsed object', async ({ baseURL }) => {
    const model = new ChatOpenAI({ model: 'fake-agent', apiKey, configuration: { baseURL: `${baseURL}/api/v1` }, maxRetries: 0 });
    const withTools = model.bindTools([{ type: 'function', function: weather.function }]);
    const reply = await withTools.invoke('Weather in Lima?');
    expect(reply.tool_calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { city: 'city', days: 1 } })]);
    let streamedArgs = '';
    for await (const chunk of await withTools.stream('Weather in Lima?')) streamedArgs += chunk.tool_call_chunks?.[0]?.args ?? '';
    expect(JSON.parse(streamedArgs)).toEqual({ city: 'city', days: 1 });

    const structured = model.withStructuredOutput(z.object({ name: z.string(), age: z.number() }), { name: 'person' });
    expect(await structured.invoke('Describe someone')).toEqual({ name: 'name', age: 1 });
    const viaJsonSchema = model.withStructuredOutput(z.object({ name: z.string(), age: z.number() }), {
      name: 'person',
      method: 'jsonSchema',
    });
    expect(await viaJsonSchema.invoke('Describe someone')).toEqual({ name: 'name', age: 1 });
  });
});
