import { createOpenAI } from '@ai-sdk/openai';
import { Agent, OpenAIProvider, Runner, tool as agentTool, setTracingDisabled } from '@openai/agents';
import { generateText, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';
import { UPSTREAM_PORT } from '../../scripts/lib/test-env.mjs';
import { expect, test } from '../support/fixtures';

/*
 * The Responses API (design §16) as today's clients speak it, over Triad onto the fake model server's
 * Chat Completions (a real socket): the openai SDK's responses.create whole and streamed (OpenAI's event
 * sequence with rising sequence numbers), a function-call round trip with previous_response_id,
 * retrieve, input items and delete; stored responses belong to their organization only; store: false;
 * text.format; hosted tools left out and named; bad input in OpenAI's error shape; the Vercel AI SDK's
 * default OpenAI provider in a two-step tool loop; the OpenAI Agents SDK's default mode running an
 * agent with a tool.
 */
test.describe.configure({ mode: 'parallel' });
setTracingDisabled(true);

let apiKey: string;
let client: OpenAI;
test.beforeEach(async ({ admin, org, baseURL }) => {
  apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  client = new OpenAI({ apiKey, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
});
const unique = (what: string) => `${what} ${Date.now()}-${Math.random().toString(36).slice(2)}`;
/** The request bodies the fake model server received that hold `marker`. */
async function received(marker: string): Promise<Record<string, unknown>[]> {
  const log = (await (await fetch(`http://127.0.0.1:${UPSTREAM_PORT}/__log`)).json()) as { requests: Record<string, unknown>[] };
  return log.requests.filter((b) => JSON.stringify(b).includes(marker));
}
const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

test('responses.create: a whole response with its text, usage and id, served by a provider', async () => {
  const marker = unique('whole');
  const { data: response, response: raw } = await client.responses
    .create({ model: 'fake-echo', input: marker, instructions: 'Be brief.' })
    .withResponse();
  expect(raw.headers.get('x-triad-provider')).toBe('default');
  expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'fake-echo', instructions: 'Be brief.', error: null });
  expect(response.id).toMatch(/^resp_/);
  expect(response.output_text).toBe(`Echo: ${marker}`);
  expect(response.output).toEqual([
    {
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: `Echo: ${marker}`, annotations: [], logprobs: [] }],
    },
  ]);
  expect(response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
  expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
  // The model server got the instructions as a system message, then the input.
  const [sent] = await received(marker);
  expect(sent!.messages).toEqual([
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: marker },
  ]);
});

test("a message's text parts reach the model server as lines of one text, as Codex sends its developer message", async () => {
  const marker = unique('parts');
  await client.responses.create({
    model: 'fake-echo',
    input: [
      {
        type: 'message',
        role: 'developer',
        content: [
          { type: 'input_text', text: '<permissions instructions>none</permissions instructions>' },
          { type: 'input_text', text: 'Answer briefly.' },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: marker }] },
    ],
  });
  const [sent] = await received(marker);
  expect((sent!.messages as unknown[])[0]).toEqual({
    role: 'developer',
    content: '<permissions instructions>none</permissions instructions>\nAnswer briefly.',
  });
});

test("streamed: OpenAI's event sequence with rising sequence numbers, the deltas adding up to the text, ending with response.completed", async () => {
  const marker = unique('streamed');
  const stream = await client.responses.create({ model: 'fake-echo', input: marker, stream: true });
  const events: { type: string; sequence_number: number; delta?: string; response?: { status: string; usage: unknown } }[] = [];
  for await (const e of stream) events.push(e as never);
  const types = events.map((e) => e.type);
  expect(types.slice(0, 4)).toEqual([
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
  ]);
  expect(types.slice(-4)).toEqual([
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  const text = events
    .filter((e) => e.type === 'response.output_text.delta')
    .map((e) => e.delta)
    .join('');
  expect(text).toBe(`Echo: ${marker}`);
  const done = events.at(-1)!.response!;
  expect(done.status).toBe('completed');
  expect(done.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });

  // The SDK's stream helper reads it too.
  const helper = client.responses.stream({ model: 'fake-echo', input: `${marker} again` });
  const final = await helper.finalResponse();
  expect(final.output_text).toBe(`Echo: ${marker} again`);
});

test('a function call and its output, continued with previous_response_id; retrieve, input items, delete', async () => {
  const marker = unique('weather');
  const first = await client.responses.create({ model: 'fake-agent', input: `What is the weather? ${marker}`, tools: [weather] });
  const call = first.output.find((o) => o.type === 'function_call');
  expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed', call_id: expect.any(String) });
  expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: 'city' });

  const second = await client.responses.create({
    model: 'fake-agent',
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: 'sunny, 21 °C' }],
    tools: [weather],
  });
  expect(second.output_text).toBe('Tool said: sunny, 21 °C');
  expect(second.previous_response_id).toBe(first.id);
  // The model server got the whole conversation: the question, the call, its result.
  const sent = (await received(marker)).at(-1)!;
  expect(sent.messages).toEqual([
    { role: 'user', content: `What is the weather? ${marker}` },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: (call as { call_id: string }).call_id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"city"}' } },
      ],
    },
    { role: 'tool', tool_call_id: (call as { call_id: string }).call_id, content: 'sunny, 21 °C' },
  ]);
  expect(sent.tools).toEqual([
    {
      type: 'function',
      function: { name: 'get_weather', description: 'The weather in a city', parameters: weather.parameters, strict: true },
    },
  ]);

  // The same turn by reference (as the Vercel AI SDK sends it): the stored call named by its item id.
  const byReference = await client.responses.create({
    model: 'fake-agent',
    input: [
      { role: 'user', content: `What is the weather? ${marker}` },
      { type: 'item_reference', id: (call as { id: string }).id },
      { type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: 'hail' },
    ],
    tools: [weather],
  });
  expect(byReference.output_text).toBe('Tool said: hail');
  expect(((await received(marker)).at(-1)!.messages as { role: string }[]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);

  const again = await client.responses.retrieve(second.id);
  expect(again).toMatchObject({ id: second.id, status: 'completed', output: second.output });
  const items = await client.responses.inputItems.list(second.id);
  expect(items.data).toEqual([expect.objectContaining({ type: 'function_call_output', output: 'sunny, 21 °C', id: expect.any(String) })]);
  expect(await client.responses.delete(second.id)).toEqual({ id: second.id, object: 'response', deleted: true });
  await expect(client.responses.retrieve(second.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  await expect(client.responses.delete(second.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
});

test("a stored response is its organization's only; store: false keeps none", async ({ admin, baseURL }) => {
  const mine = await client.responses.create({ model: 'fake-echo', input: unique('private') });
  const otherOrg = await admin(['org', 'create', '--name', 'Another organization']);
  const otherKey = (await admin(['apikey', 'create', '--org', otherOrg.org_id!])).api_key!;
  const other = new OpenAI({ apiKey: otherKey, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
  const seen = await other.responses.retrieve(mine.id).catch((e: unknown) => e);
  const never = await other.responses.retrieve('resp_never_was').catch((e: unknown) => e);
  expect(seen).toBeInstanceOf(OpenAI.NotFoundError);
  expect((seen as InstanceType<typeof OpenAI.NotFoundError>).error).toEqual({
    ...(never as InstanceType<typeof OpenAI.NotFoundError>).error,
    message: `Response with id '${mine.id}' not found.`,
  });
  await expect(other.responses.delete(mine.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  const continued = await other.responses
    .create({ model: 'fake-echo', input: 'go on', previous_response_id: mine.id })
    .catch((e: unknown) => e);
  expect(continued).toBeInstanceOf(OpenAI.BadRequestError);
  expect((continued as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
  // Still there for its own organization.
  expect((await client.responses.retrieve(mine.id)).id).toBe(mine.id);

  const unstored = await client.responses.create({ model: 'fake-echo', input: 'forget me', store: false });
  expect((unstored as unknown as { store: boolean }).store).toBe(false);
  await expect(client.responses.retrieve(unstored.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
});

test('text.format json_schema becomes response_format; hosted tools are left out and named; a tool_choice that needs one is a 400', async () => {
  const marker = unique('schema');
  const shaped = await client.responses.create({
    model: 'fake-agent',
    input: marker,
    text: {
      format: {
        type: 'json_schema',
        name: 'city',
        schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        strict: true,
      },
    },
  });
  expect(JSON.parse(shaped.output_text)).toEqual({ name: 'name' });
  expect((await received(marker))[0]!.response_format).toEqual({
    type: 'json_schema',
    json_schema: { name: 'city', schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, strict: true },
  });

  const hosted = unique('hosted');
  const { data, response } = await client.responses
    .create({ model: 'fake-echo', input: hosted, tools: [{ type: 'web_search' }, weather] })
    .withResponse();
  expect(response.headers.get('triad-omitted-tools')).toBe('web_search');
  expect(data.output_text).toBe(`Echo: ${hosted}`);
  // A type no tool has, of any text (a line break, letters past Latin-1): named percent-encoded, never a failed reply.
  const odd = await client.responses
    .create({ model: 'fake-echo', input: hosted, tools: [{ type: 'wéb\nX-Injected: 1' } as unknown as OpenAI.Responses.Tool, weather] })
    .withResponse();
  expect(odd.response.headers.get('triad-omitted-tools')).toBe('w%C3%A9b%0AX-Injected%3A%201');
  expect(odd.response.headers.get('x-injected')).toBeNull();
  expect(odd.data.output_text).toBe(`Echo: ${hosted}`);
  expect((await received(hosted))[0]!.tools).toEqual([
    expect.objectContaining({ function: expect.objectContaining({ name: 'get_weather' }) }),
  ]);

  const required = await client.responses
    .create({
      model: 'fake-echo',
      input: 'search',
      tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }],
      tool_choice: { type: 'file_search' },
    })
    .catch((e: unknown) => e);
  expect(required).toBeInstanceOf(OpenAI.BadRequestError);
  expect((required as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('file_search');
});

test('items of kinds Triad does not translate (hosted tools’ calls, a compaction) are kept, and left out of the chat request', async ({
  request,
}) => {
  const marker = unique('other-items');
  const input = [
    { type: 'message', role: 'user', content: marker },
    { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'weather' } },
    { type: 'mcp_list_tools', id: 'mcpl_1', server_label: 'crm', tools: [{ name: 'lookup', input_schema: {} }] },
    { type: 'compaction', encrypted_content: 'opaque' },
    { type: 'message', role: 'user', content: 'go on' },
  ];
  const res = await request.post('/api/v1/responses', {
    headers: { authorization: `Bearer ${apiKey}` },
    data: { model: 'fake-echo', input, tools: [{ type: 'tool_search' }] },
  });
  expect(res.status(), await res.text()).toBe(200);
  const response = (await res.json()) as { id: string };
  expect(res.headers()['triad-omitted-tools']).toBe('tool_search'); // a hosted one: the provider cannot run it
  // The model server got the two user turns and nothing of the rest.
  const sent = (await received(marker))[0]!;
  expect(sent.messages).toEqual([
    { role: 'user', content: marker },
    { role: 'user', content: 'go on' },
  ]);
  // The stored conversation keeps every item as it came.
  const items = await client.responses.inputItems.list(response.id, { order: 'asc' });
  expect(items.data.map((i) => i.type)).toEqual(input.map((i) => i.type));
  expect(items.data[1]).toMatchObject({ type: 'web_search_call', id: 'ws_1', action: { query: 'weather' } });
  // A kind Triad does translate is still validated as such.
  const bad = await request.post('/api/v1/responses', {
    headers: { authorization: `Bearer ${apiKey}` },
    data: { model: 'fake-echo', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] },
  });
  expect(bad.status()).toBe(400);
  expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('call_id');
});

test('a custom (free-text) tool, as Codex’s apply_patch: a function of its input for the model, its calls custom_tool_call items, whole and streamed', async () => {
  const grammar = 'start: begin_patch hunk+ end_patch';
  const applyPatch = {
    type: 'custom' as const,
    name: 'apply_patch',
    description: 'Patch files',
    format: { type: 'grammar' as const, syntax: 'lark' as const, definition: grammar },
  };
  const marker = unique('custom-tool');
  const patch = `*** Begin Patch\n*** Add File: ${marker}.txt\n+"hi"\n*** End Patch`;
  // The history's call and output, and the model's own call (the fake model calls the first tool it has).
  const first = await client.responses.create({
    model: 'fake-agent',
    tools: [applyPatch],
    input: [
      { type: 'message', role: 'user', content: marker },
      { type: 'custom_tool_call', call_id: 'call_patch', name: 'apply_patch', input: patch },
      { type: 'custom_tool_call_output', call_id: 'call_patch', output: 'Done!' },
      { type: 'message', role: 'user', content: 'again' },
    ],
  });
  const sent = (await received(marker))[0]! as { tools: unknown[]; messages: unknown[] };
  expect(sent.tools).toEqual([
    {
      type: 'function',
      function: {
        name: 'apply_patch',
        description: 'Patch files',
        parameters: {
          type: 'object',
          properties: { input: { type: 'string', description: expect.stringContaining(grammar) } },
          required: ['input'],
          additionalProperties: false,
        },
      },
    },
  ]);
  expect(sent.messages).toEqual([
    { role: 'user', content: marker },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_patch', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) } }],
    },
    { role: 'tool', tool_call_id: 'call_patch', content: 'Done!' },
    { role: 'user', content: 'again' },
  ]);
  // The fake model fills a string parameter with its name: the input is "input".
  expect(first.output).toEqual([
    expect.objectContaining({ type: 'custom_tool_call', name: 'apply_patch', input: 'input', status: 'completed' }),
  ]);
  expect(first.output[0]!.id).toMatch(/^ctc_/);

  const stream = await client.responses.create({ model: 'fake-agent', tools: [applyPatch], input: unique('custom-stream'), stream: true });
  const events: { type: string; delta?: string; input?: string; item?: { type: string; input?: string } }[] = [];
  for await (const e of stream) events.push(e as (typeof events)[number]);
  const types = events.map((e) => e.type);
  expect(types).not.toContain('response.function_call_arguments.delta');
  const added = events.find((e) => e.type === 'response.output_item.added')!;
  expect(added.item).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: '' });
  expect(
    events
      .filter((e) => e.type === 'response.custom_tool_call_input.delta')
      .map((e) => e.delta)
      .join(''),
  ).toBe('input');
  expect(events.find((e) => e.type === 'response.custom_tool_call_input.done')!.input).toBe('input');
  expect(events.find((e) => e.type === 'response.output_item.done')!.item).toMatchObject({ type: 'custom_tool_call', input: 'input' });
  expect(types.at(-1)).toBe('response.completed');
});

test('a tool search the client runs, as Codex’s: a function for the model, its call a tool_search_call item, the tools its output loaded callable from then on', async () => {
  const parameters = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'], additionalProperties: false };
  const search = {
    type: 'tool_search',
    execution: 'client',
    description: 'Find more tools',
    parameters,
  } as unknown as OpenAI.Responses.Tool;
  const marker = unique('tool-search');
  // The model searches (the fake model calls the tool a user message names, its string parameters filled with their names);
  // a function marked defer_loading waits for a search to load it.
  const { data: first, response: raw } = await client.responses
    .create({
      model: 'fake-agent',
      tools: [search, { ...weather, defer_loading: true }],
      input: `Find a tool [tool:tool_search] ${marker}`,
    })
    .withResponse();
  expect(raw.headers.get('triad-omitted-tools')).toBe('deferred');
  expect(first.output).toEqual([
    expect.objectContaining({ type: 'tool_search_call', execution: 'client', arguments: { query: 'query' }, status: 'completed' }),
  ]);
  expect(first.output[0]!.id).toMatch(/^tsc_/);
  expect(((await received(marker))[0] as { tools: unknown[] }).tools).toEqual([
    { type: 'function', function: { name: 'tool_search', description: 'Find more tools', parameters } },
  ]);

  // The client's answer: what it found, a namespace's function and a function; the model may call them from now on.
  const callId = (first.output[0] as unknown as { call_id: string }).call_id;
  const lookup = { type: 'function', name: 'lookup', description: 'Look a customer up', parameters: { type: 'object', properties: {} } };
  const found = {
    type: 'tool_search_output',
    call_id: callId,
    execution: 'client',
    status: 'completed',
    tools: [
      { type: 'namespace', name: 'crm', description: 'The CRM', tools: [{ ...lookup, defer_loading: true }] },
      { type: 'function', name: 'forecast', parameters: { type: 'object', properties: {} } },
    ],
  } as unknown as OpenAI.Responses.ResponseInputItem;
  const second = await client.responses.create({ model: 'fake-agent', tools: [search], previous_response_id: first.id, input: [found] });
  const loaded = 'Tools loaded, to be called from now on: crm__lookup, forecast';
  expect(second.output_text).toBe(`Tool said: ${loaded}`);
  const turn = (await received(marker)).at(-1) as { tools: { function: { name: string } }[]; messages: unknown[] };
  expect(turn.tools.map((t) => t.function.name)).toEqual(['tool_search', 'crm__lookup', 'forecast']);
  expect(turn.messages.slice(-2)).toEqual([
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: callId, type: 'function', function: { name: 'tool_search', arguments: '{"query":"query"}' } }],
    },
    { role: 'tool', tool_call_id: callId, content: loaded },
  ]);

  // A loaded tool called, streamed: the namespace's function comes back with its namespace.
  const events: { type: string; item?: Record<string, unknown> }[] = [];
  const stream = await client.responses.create({
    model: 'fake-agent',
    tools: [search],
    previous_response_id: second.id,
    input: `Now look it up [tool:crm__lookup] ${marker}`,
    stream: true,
  });
  for await (const e of stream) events.push(e as (typeof events)[number]);
  expect(events.find((e) => e.type === 'response.output_item.done')!.item).toMatchObject({
    type: 'function_call',
    name: 'lookup',
    namespace: 'crm',
  });

  // A search streamed: the call's item added, then done with its arguments; no argument deltas of a function.
  const searching: { type: string; item?: Record<string, unknown> }[] = [];
  const again = await client.responses.create({ model: 'fake-agent', tools: [search], input: unique('[tool:tool_search]'), stream: true });
  for await (const e of again) searching.push(e as (typeof searching)[number]);
  expect(searching.map((e) => e.type)).not.toContain('response.function_call_arguments.delta');
  expect(searching.find((e) => e.type === 'response.output_item.added')!.item).toMatchObject({
    type: 'tool_search_call',
    execution: 'client',
    status: 'in_progress',
  });
  expect(searching.find((e) => e.type === 'response.output_item.done')!.item).toMatchObject({
    type: 'tool_search_call',
    execution: 'client',
    arguments: { query: 'query' },
    status: 'completed',
  });
  expect(searching.at(-1)!.type).toBe('response.completed');
});

test('bad input is a 400 in OpenAI’s error shape, naming the field; an unknown model 404', async ({ request }) => {
  const post = (data: unknown) =>
    request.post('/api/v1/responses', { headers: { authorization: `Bearer ${apiKey}` }, data: data as object });
  for (const [body, param] of [
    [{ input: 'no model' }, 'model'],
    [{ model: 'fake-echo', input: [{ type: 'function_call_output' }] }, 'input'],
    [{ model: 'fake-echo', input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
    [{ model: 'fake-echo' }, 'input'],
  ] as const) {
    const res = await post(body);
    expect(res.status(), JSON.stringify(body)).toBe(400);
    const { error } = (await res.json()) as { error: { type: string; message: string; param?: string } };
    expect(error.type).toBe('invalid_request_error');
    expect(error.param ?? error.message).toContain(param);
  }
  const unknown = await post({ model: 'no-such-model', input: 'hi' });
  expect(unknown.status()).toBe(404);
  expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
  const missing = await post({ model: 'fake-echo', input: [{ type: 'item_reference', id: 'msg_nope' }] });
  expect(missing.status()).toBe(400);
});

test("the Vercel AI SDK's default OpenAI provider (the Responses API) in a two-step tool loop", async ({ baseURL }) => {
  const marker = unique('ai-sdk');
  const openai = createOpenAI({ baseURL: `${baseURL}/api/v1`, apiKey });
  const result = await generateText({
    model: openai('fake-agent'),
    prompt: `Weather please. ${marker}`,
    tools: {
      get_weather: tool({
        description: 'The weather in a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => `rain in ${city}`,
      }),
    },
    stopWhen: stepCountIs(3),
  });
  expect(result.steps).toHaveLength(2);
  expect(result.steps[0]!.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: 'city' } });
  expect(result.text).toBe('Tool said: rain in city');
  expect(result.usage.inputTokens).toBeGreaterThan(0);
  // Its second step named the stored call by reference (item_reference): the model server got the whole turn.
  const sent = (await received(marker)).at(-1)!;
  expect((sent.messages as { role: string }[]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
});

test("the OpenAI Agents SDK's default mode runs an agent with a tool", async ({ baseURL }) => {
  const marker = unique('agents');
  const provider = new OpenAIProvider({ apiKey, baseURL: `${baseURL}/api/v1` });
  const agent = new Agent({
    name: 'Forecaster',
    instructions: 'Use the tool.',
    model: 'fake-agent',
    tools: [
      agentTool({
        name: 'get_weather',
        description: 'The weather in a city',
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }) => `fog over ${city}`,
      }),
    ],
  });
  const result = await new Runner({ modelProvider: provider }).run(agent, `Weather? ${marker}`);
  expect(result.finalOutput).toBe('Tool said: fog over city');
  // Both turns went to the model server as chat completions, the second with the tool's result.
  const sent = await received(marker);
  expect(sent).toHaveLength(2);
  expect(JSON.stringify(sent[1]!.messages)).toContain('fog over city');
});
