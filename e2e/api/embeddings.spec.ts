import OpenAI from 'openai';
import { UPSTREAM_PORT } from '../../scripts/lib/test-env.mjs';
import { expect, test } from '../support/fixtures';

/*
 * Embeddings (design §16) with the openai SDK, routed to the provider that serves the model (the fake
 * model server's fake-embed, over a real socket): one input and several, the SDK's default base64
 * encoding decoded to the same numbers, usage, the client's model name; bad input, an unknown model, and a chat model.
 */
let client: OpenAI;
test.beforeEach(async ({ admin, org, baseURL }) => {
  const apiKey = (await admin(['apikey', 'create', '--org', org.id, '--rpm', '1000'])).api_key!;
  client = new OpenAI({ apiKey, baseURL: `${baseURL}/api/v1`, maxRetries: 0 });
});

test('embeddings.create: a vector per input, in order, the same text the same vector, with usage', async () => {
  const one = await client.embeddings.create({ model: 'fake-embed', input: 'the quick brown fox' });
  expect(one).toMatchObject({ object: 'list', model: 'fake-embed', usage: { prompt_tokens: 4, total_tokens: 4 } });
  expect(one.data).toHaveLength(1);
  expect(one.data[0]!.embedding).toHaveLength(8);
  const many = await client.embeddings.create({ model: 'fake-embed', input: ['a b', 'the quick brown fox'], encoding_format: 'float' });
  expect(many.data.map((d) => d.index)).toEqual([0, 1]);
  // The SDK asked for base64 the first time and decoded it: the same numbers as floats (to float32 precision).
  many.data[1]!.embedding.forEach((x, i) => expect(one.data[0]!.embedding[i]!).toBeCloseTo(x, 5));
  const sent = (await (await fetch(`http://127.0.0.1:${UPSTREAM_PORT}/__log`)).json()) as {
    embeddings: { model: string; input: unknown }[];
  };
  expect(sent.embeddings.some((r) => r.model === 'fake-embed' && JSON.stringify(r.input) === '["a b","the quick brown fox"]')).toBe(true);
});

test('bad input is a 400 naming the field; a model nobody serves 404, and a chat model 404 saying it does not embed', async () => {
  const bad = await client.embeddings.create({ model: 'fake-embed', input: [] as string[] }).catch((e: unknown) => e);
  expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
  expect((bad as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('input');
  const unknown = await client.embeddings.create({ model: 'no-such-model', input: 'x' }).catch((e: unknown) => e);
  expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
  expect((unknown as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  expect((unknown as Error).message).toContain('`no-such-model` does not exist');
  // A chat model whose server does not embed: still 404, but saying so, with the server's own words.
  const chatModel = await client.embeddings.create({ model: 'fake-echo', input: 'x' }).catch((e: unknown) => e);
  expect(chatModel).toBeInstanceOf(OpenAI.NotFoundError);
  expect((chatModel as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  expect((chatModel as Error).message).toContain('`fake-echo` is served here, but not for embeddings');
  expect((chatModel as Error).message).toContain('model fake-echo does not embed');
});
