import Anthropic from '@anthropic-ai/sdk';
import { UPSTREAM_PORT } from '../../scripts/lib/test-env.mjs';
import { expect, test } from '../support/fixtures';

/*
 * Anthropic's Messages API (design §16) as the Anthropic SDK speaks it (base URL `<triad>/api`, the key
 * as x-api-key), over Triad onto the fake model server's Chat Completions on a real socket: a whole
 * message; a streamed tool round trip (tool_use input streamed as input_json_delta, then the
 * tool_result answered); count_tokens; fields a Chat provider cannot take left out, never refused;
 * errors in Anthropic's shape.
 */
test.describe.configure({ mode: 'parallel' });

let apiKey: string;
let client: Anthropic;
test.beforeEach(async ({ admin, org, baseURL }) => {
  apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  client = new Anthropic({ apiKey, baseURL: `${baseURL}/api`, maxRetries: 0 });
});
const unique = (what: string) => `${what} ${Date.now()}-${Math.random().toString(36).slice(2)}`;
async function received(marker: string): Promise<Record<string, unknown>[]> {
  const log = (await (await fetch(`http://127.0.0.1:${UPSTREAM_PORT}/__log`)).json()) as { requests: Record<string, unknown>[] };
  return log.requests.filter((b) => JSON.stringify(b).includes(marker));
}
const weather = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

test('messages.create: a whole message with its text, stop reason and usage; the system prompt goes first', async () => {
  const marker = unique('whole');
  const { data: message, response } = await client.messages
    .create({ model: 'fake-echo', max_tokens: 200, system: 'Be brief.', messages: [{ role: 'user', content: marker }] })
    .withResponse();
  expect(response.headers.get('x-triad-provider')).toBe('default');
  expect(message).toMatchObject({
    type: 'message',
    role: 'assistant',
    model: 'fake-echo',
    content: [{ type: 'text', text: `Echo: ${marker}` }],
    stop_reason: 'end_turn',
    stop_sequence: null,
  });
  expect(message.id).toMatch(/^msg_/);
  expect(message.usage.input_tokens).toBeGreaterThan(0);
  expect(message.usage.output_tokens).toBeGreaterThan(0);
  const [sent] = await received(marker);
  expect(sent!.messages).toEqual([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: marker },
  ]);
  expect(sent!.max_tokens).toBe(200);
});

test('messages.stream: a tool call whose input streams as input_json_delta, then its tool_result answered', async () => {
  const marker = unique('tools');
  const stream = client.messages.stream({
    model: 'fake-agent',
    max_tokens: 500,
    tools: [weather],
    messages: [{ role: 'user', content: `Weather? ${marker}` }],
  });
  const types: string[] = [];
  const partial: string[] = [];
  stream.on('streamEvent', (e) => {
    types.push(e.type);
    if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') partial.push(e.delta.partial_json);
  });
  const first = await stream.finalMessage();
  expect(types[0]).toBe('message_start');
  expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  expect(partial.length).toBeGreaterThan(0);
  expect(JSON.parse(partial.join(''))).toEqual({ city: 'city' });
  expect(first.stop_reason).toBe('tool_use');
  const use = first.content.find((b) => b.type === 'tool_use')!;
  expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'city' } });
  expect(first.usage.output_tokens).toBeGreaterThan(0);

  const second = await client.messages.create({
    model: 'fake-agent',
    max_tokens: 500,
    tools: [weather],
    messages: [
      { role: 'user', content: `Weather? ${marker}` },
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: (use as { id: string }).id, content: 'sunny' }] },
    ],
  });
  expect(second.content).toEqual([{ type: 'text', text: 'Tool said: sunny' }]);
  const sent = (await received(marker)).at(-1)!;
  expect(sent.messages).toEqual([
    { role: 'user', content: `Weather? ${marker}` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: (use as { id: string }).id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"city"}' } }],
    },
    { role: 'tool', tool_call_id: (use as { id: string }).id, content: 'sunny' },
  ]);
});

test('count_tokens counts the prompt as a provider gets it', async () => {
  const short = await client.messages.countTokens({ model: 'fake-echo', messages: [{ role: 'user', content: 'hi' }] });
  const long = await client.messages.countTokens({
    model: 'fake-echo',
    system: 'You are a careful assistant.',
    tools: [weather],
    messages: [{ role: 'user', content: 'hi '.repeat(200) }],
  });
  expect(short.input_tokens).toBeGreaterThan(0);
  expect(long.input_tokens).toBeGreaterThan(short.input_tokens + 200);
});

test('fields a Chat provider cannot take are left out, never refused; server tools are named; stop_sequences and tool_choice translate; text blocks join line by line', async ({
  baseURL,
}) => {
  const marker = unique('fields');
  const res = await fetch(`${baseURL}/api/v1/messages`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'x',
    },
    body: JSON.stringify({
      model: 'fake-agent',
      max_tokens: 100,
      // As Claude Code sends them: a header block before the prompt, a reminder before the user's words.
      system: [
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1;' },
        { type: 'text', text: 'Stay short.', cache_control: { type: 'ephemeral' } },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>Be kind.</system-reminder>' },
            { type: 'text', text: marker, cache_control: { type: 'ephemeral' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'Sure.' },
          ],
        },
        { role: 'user', content: 'go on' },
      ],
      tools: [weather, { type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
      tool_choice: { type: 'any' },
      stop_sequences: ['END'],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      metadata: { user_id: 'u-1' },
      context_management: { edits: [] },
      top_k: 5,
    }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('triad-omitted-tools')).toBe('web_search_20250305');
  const sent = (await received(marker))[0]!;
  expect(sent).toMatchObject({
    messages: [
      { role: 'system', content: 'x-anthropic-billing-header: cc_version=2.1;\nStay short.' },
      { role: 'user', content: `<system-reminder>Be kind.</system-reminder>\n${marker}` },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: 'go on' },
    ],
    tool_choice: 'required',
    stop: ['END'],
    user: 'u-1',
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather.input_schema } }],
  });
  for (const left of ['thinking', 'metadata', 'context_management', 'top_k', 'system', 'stop_sequences'])
    expect(sent).not.toHaveProperty(left);
});

test('deferred tools (defer_loading) stay out of the model’s view until a tool search’s tool_reference names them, as Claude Code sends them', async () => {
  const placeholder = {
    name: 'DeferredToolPlaceholder',
    description: 'Reserved placeholder that keeps deferred tool loading active; never call this tool.',
    input_schema: { type: 'object' as const, properties: {} },
    defer_loading: true,
  };
  const search = {
    name: 'ToolSearch',
    description: 'Finds deferred tools',
    input_schema: { type: 'object' as const, properties: { query: { type: 'string' } }, required: ['query'] },
  };
  const deferredWeather = { ...weather, defer_loading: true };
  // The first turn: the model sees the search tool only, and calls it (the fake model calls the first tool it sees).
  const first = unique('deferred');
  const { data: called, response } = await client.messages
    .create({
      model: 'fake-agent',
      max_tokens: 100,
      messages: [{ role: 'user', content: first }],
      tools: [placeholder, search, deferredWeather] as Anthropic.Tool[],
    })
    .withResponse();
  expect(response.headers.get('triad-omitted-tools')).toBe('deferred');
  expect(called.content).toContainEqual(expect.objectContaining({ type: 'tool_use', name: 'ToolSearch' }));
  const use = called.content.find((b) => b.type === 'tool_use')!;
  expect(((await received(first))[0]!.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['ToolSearch']);
  // The search's result references get_weather: from then on the model sees it, and its result reads its name.
  const second = unique('loaded');
  await client.messages.create({
    model: 'fake-agent',
    max_tokens: 100,
    messages: [
      { role: 'user', content: second },
      { role: 'assistant', content: [use] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: use.id, content: [{ type: 'tool_reference', tool_name: 'get_weather' }] },
        ] as unknown as Anthropic.ContentBlockParam[],
      },
    ],
    tools: [placeholder, search, deferredWeather] as Anthropic.Tool[],
  });
  const sent = (await received(second))[0]!;
  expect((sent.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['ToolSearch', 'get_weather']);
  expect(sent.messages).toContainEqual({ role: 'tool', tool_call_id: use.id, content: 'get_weather' });
});

test('stop_sequences: stop_reason stop_sequence with the sequence, whole and streamed, when the server names it; end_turn when it does not', async () => {
  // fake-agent ends its text before a stop string and names it in the finishing choice, as vLLM does.
  const marker = unique('stop');
  const ask = {
    model: 'fake-agent',
    max_tokens: 100,
    stop_sequences: ['NEVER', 'HALT-7'],
    messages: [{ role: 'user' as const, content: `${marker} HALT-7 not this` }],
  };
  const whole = await client.messages.create(ask);
  expect(whole).toMatchObject({
    content: [{ type: 'text', text: `Echo: ${marker} ` }],
    stop_reason: 'stop_sequence',
    stop_sequence: 'HALT-7',
  });
  const streamed = await client.messages.stream(ask).finalMessage();
  expect(streamed).toMatchObject({
    content: [{ type: 'text', text: `Echo: ${marker} ` }],
    stop_reason: 'stop_sequence',
    stop_sequence: 'HALT-7',
  });
  // A reply that ended otherwise, and a server that does not say where it stopped (fake-echo, as Ollama).
  const otherwise = await client.messages.create({ ...ask, stop_sequences: ['NEVER'] });
  expect(otherwise).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
  const unsaid = await client.messages.create({ ...ask, model: 'fake-echo' });
  expect(unsaid).toMatchObject({ stop_reason: 'end_turn', stop_sequence: null });
});

test("errors come in Anthropic's shape: bad input 400, a wrong key 401, an unknown model 404", async ({ baseURL }) => {
  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${baseURL}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const bad = await post({ 'x-api-key': apiKey }, { model: 'fake-echo', messages: [{ role: 'user', content: 'hi' }] });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toEqual({
    type: 'error',
    // The field named once, as Anthropic writes it.
    error: { type: 'invalid_request_error', message: 'max_tokens: Invalid input: expected number, received undefined' },
  });
  const wrong = await post(
    { 'x-api-key': 'sk_live_not-a-key' },
    { model: 'fake-echo', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
  );
  expect(wrong.status).toBe(401);
  expect(((await wrong.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
  await expect(
    client.messages.create({ model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
  ).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  const unknown = await post(
    { 'x-api-key': apiKey },
    { model: 'no-such-model', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
  );
  expect(await unknown.json()).toEqual({
    type: 'error',
    error: { type: 'not_found_error', message: expect.stringContaining('no-such-model') },
  });
  const wrongMethod = await fetch(`${baseURL}/api/v1/messages`);
  expect(wrongMethod.status).toBe(405);
  expect(((await wrongMethod.json()) as { type: string }).type).toBe('error');
});
