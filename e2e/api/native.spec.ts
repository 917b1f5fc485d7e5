import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { UPSTREAM_PORT } from '../../scripts/lib/test-env.mjs';
import { expect, test } from '../support/fixtures';

/*
 * Passed through, not translated (design §16): a provider that declares it speaks the Responses API or
 * Anthropic's Messages natively (`--endpoints responses,messages`) gets those requests as the client
 * wrote them, under its own model name — the conversation of a previous_response_id spelt out, the
 * client's anthropic-version and anthropic-beta passed on — and its replies, whole and streamed, come
 * back with only the client's model name (and Triad's response id) written in, its own usage kept.
 * The same model on a provider that declares nothing is translated onto Chat Completions.
 */
test.describe.configure({ mode: 'serial' });

const upstream = `http://127.0.0.1:${UPSTREAM_PORT}/v1`;
type Native = {
  path: string;
  anthropic_version: string | null;
  anthropic_beta: string | null;
  x_api_key: boolean;
  body: Record<string, unknown>;
};
async function natives(marker: string): Promise<Native[]> {
  const log = (await (await fetch(`http://127.0.0.1:${UPSTREAM_PORT}/__log`)).json()) as { native: Native[] };
  return log.native.filter((n) => JSON.stringify(n.body).includes(marker));
}
const unique = (what: string) => `${what} ${Date.now()}-${Math.random().toString(36).slice(2)}`;

let model: string;
let openai: OpenAI;
let anthropic: Anthropic;
test.beforeAll(async ({ admin, org, baseURL }) => {
  model = `native-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  openai = new OpenAI({ apiKey, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey, baseURL: `${baseURL}/api`, maxRetries: 0 });
  await admin(['provider', 'add', '--name', model, '--base-url', upstream, '--api-key', 'upstream-key', '--models', model]);
  await admin(['provider', 'update', model, '--renames', `${model}=fake-echo`, '--endpoints', 'responses,messages']);
  const listed = await admin(['provider', 'list']);
  expect((listed.providers as { name: string; endpoints: string[] | null }[]).find((p) => p.name === model)!.endpoints).toEqual([
    'responses',
    'messages',
  ]);
  await expect.poll(async () => (await openai.models.list()).data.some((m) => m.id === model), { timeout: 15_000 }).toBe(true);
});
test.afterAll(async ({ admin }) => {
  await admin(['provider', 'remove', model]);
});

test('the Responses API passed through: whole and streamed, Triad ids and the stored chain, the server’s usage', async () => {
  const said = unique('first');
  const first = await openai.responses.create({ model, input: said });
  expect(first.output_text).toBe(`native: ${said}`);
  expect(first.model).toBe(model);
  expect(first.id).toMatch(/^resp_/);
  expect(first.id).not.toBe('resp_upstream');
  expect(first.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 }); // the server's own count
  const [sent] = await natives(said);
  expect(sent).toMatchObject({ path: '/v1/responses', body: { model: 'fake-echo', store: false } });
  expect(sent!.body).not.toHaveProperty('previous_response_id');

  // Continued: the stored turn is spelt out for the server, which stores nothing.
  const next = unique('second');
  const stream = await openai.responses.create({ model, input: next, previous_response_id: first.id, stream: true });
  const types: string[] = [];
  let text = '';
  let completed: { id: string; model: string; usage?: { input_tokens: number } | null } | null = null;
  for await (const e of stream) {
    types.push(e.type);
    if (e.type === 'response.output_text.delta') text += e.delta;
    if (e.type === 'response.completed') completed = e.response;
  }
  expect(text).toBe(`native: ${next}`);
  expect(types[0]).toBe('response.created');
  expect(types.at(-1)).toBe('response.completed');
  expect(completed).toMatchObject({ model, usage: { input_tokens: 11 } });
  const [continued] = await natives(next);
  const input = continued!.body.input as { role?: string; content: unknown; id?: string }[];
  expect(JSON.stringify(input)).toContain(said);
  expect(JSON.stringify(input)).toContain(`native: ${said}`);
  expect(input.every((i) => i.id === undefined)).toBe(true);
  // Triad kept both: retrieved by Triad's id, with their items.
  const kept = await openai.responses.retrieve(completed!.id);
  expect(kept.output_text).toBe(`native: ${next}`);
  expect(kept.previous_response_id).toBe(first.id);
});

test('items of kinds Triad does not translate reach a server that speaks the Responses API as the client wrote them', async () => {
  const said = unique('codex');
  const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch';
  const response = await openai.responses.create({
    model,
    input: [
      { type: 'message', role: 'user', content: said },
      { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_patch', name: 'apply_patch', input: patch },
      { type: 'custom_tool_call_output', call_id: 'call_patch', output: 'Done!' },
    ],
    tools: [{ type: 'custom', name: 'apply_patch', description: 'Patch files' }],
  });
  expect(response.output_text).toContain('native:');
  const [sent] = await natives(said);
  expect(sent!.body.input).toEqual([
    { type: 'message', role: 'user', content: said },
    { type: 'custom_tool_call', call_id: 'call_patch', name: 'apply_patch', input: patch },
    { type: 'custom_tool_call_output', call_id: 'call_patch', output: 'Done!' },
  ]);
  expect(sent!.body.tools).toEqual([{ type: 'custom', name: 'apply_patch', description: 'Patch files' }]);
});

test('Anthropic Messages passed through: whole and streamed, anthropic-version and -beta passed on, the server’s usage', async () => {
  const said = unique('hello');
  const whole = await anthropic.messages.create(
    { model, max_tokens: 64, messages: [{ role: 'user', content: said }] },
    { headers: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'fine-grained-tool-streaming-2025-05-14' } },
  );
  expect(whole.content).toEqual([{ type: 'text', text: `native: ${said}` }]);
  expect(whole.model).toBe(model);
  expect(whole.usage).toMatchObject({ input_tokens: 12, output_tokens: 6 });
  const [sent] = await natives(said);
  expect(sent).toMatchObject({
    path: '/v1/messages',
    anthropic_version: '2023-06-01',
    anthropic_beta: 'fine-grained-tool-streaming-2025-05-14',
    x_api_key: true, // the provider's key as Anthropic's own API takes it (and as a bearer)
    body: { model: 'fake-echo', max_tokens: 64 },
  });

  const streamed = unique('streamed');
  const final = await anthropic.messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: streamed }] }).finalMessage();
  expect(final.content).toEqual([{ type: 'text', text: `native: ${streamed}` }]);
  expect(final.model).toBe(model);
  expect(final.stop_reason).toBe('end_turn');
  expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 6 });
});

test('routing fields (provider, models) on a passed-through request are Triad’s: the server never sees them', async () => {
  const routing = { provider: { only: [model] }, models: ['no-such-model', model] };
  const said = unique('routed');
  const response = await openai.responses.create({
    model: 'no-such-model',
    input: said,
    ...routing,
  } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
  expect(response.output_text).toBe(`native: ${said}`);
  expect(response.model).toBe(model); // the fallback that answered
  const written = unique('routed message');
  const message = await anthropic.messages.create({
    model: 'no-such-model',
    max_tokens: 64,
    messages: [{ role: 'user', content: written }],
    ...routing,
  } as Anthropic.MessageCreateParamsNonStreaming);
  expect(message.content).toEqual([{ type: 'text', text: `native: ${written}` }]);
  expect(message.model).toBe(model);
  for (const marker of [said, written]) {
    const [sent] = await natives(marker);
    expect(sent!.body).toMatchObject({ model: 'fake-echo' });
    expect(sent!.body).not.toHaveProperty('provider');
    expect(sent!.body).not.toHaveProperty('models');
  }
});

test('a provider that declares nothing gets the same model translated onto Chat Completions', async ({ admin }) => {
  await admin(['provider', 'update', model, '--endpoints', 'none']);
  await expect
    .poll(
      async () => {
        const said = unique('translated');
        const r = await openai.responses.create({ model, input: said });
        return r.output_text.includes('native:') ? 'native' : 'translated';
      },
      { timeout: 15_000 },
    )
    .toBe('translated');
  await admin(['provider', 'update', model, '--endpoints', 'responses,messages']);
});
