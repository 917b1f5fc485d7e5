import { z } from 'zod';
import { aliasPageSchema, aliasWireSchema } from '@/lib/aliases/schema';
import { chatCompletionChunkSchema, chatCompletionSchema, modelListSchema } from '@/lib/chat/schema';
import { chatErrorSchema } from '@/lib/errors/chat';
import { linkErrorSchema } from '@/lib/errors/link';
import { nodePageSchema, nodeStatusSchema, seriesSchema, summarySchema, uptimeSchema } from '@/lib/stats/schema';
import { expect, test } from '../support/fixtures';

/*
 * The reply schemas (the OpenAPI document and the dashboard's client types come from them) describe
 * what the server really sends: every reply here is parsed strictly, with no field missing or extra.
 */
const strict = <T extends z.ZodType>(schema: T): z.ZodType => {
  if (schema instanceof z.ZodObject)
    return z.strictObject(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k, strict(v as z.ZodType)])));
  if (schema instanceof z.ZodArray) return z.array(strict(schema.element as z.ZodType));
  if (schema instanceof z.ZodOptional) return strict(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodNullable) return strict(schema.unwrap() as z.ZodType).nullable();
  return schema;
};
const expectShape = (schema: z.ZodType, body: unknown, what: string) => {
  const result = strict(schema).safeParse(body);
  expect(result.success ? 'ok' : JSON.stringify(result.error.issues).slice(0, 500), what).toBe('ok');
};
const data = (s: z.ZodType) => z.object({ data: s });

test('every reply matches its schema: statistics, aliases, chat, errors', async ({ request, admin, org }) => {
  const auth = { authorization: `Bearer ${org.token}` };
  const { partner_secret } = await admin(['partner', 'create', '--org', org.id, '--name', 'Shapes']);
  expect((await request.post('/api/v1/node/register', { headers: auth, data: { id: 'shape-1', secret: partner_secret } })).status()).toBe(
    200,
  );
  const now = Date.now();
  await request.post('/api/v1/node/events', {
    headers: auth,
    data: { secret: partner_secret, events: [{ partner_node_id: 'shape-1', type: 'connect', at: now - 3_600_000 }] },
  });
  const q = (extra: string) => `secret=${partner_secret}&${extra}`;
  const stats: [string, z.ZodType][] = [
    [`/api/v1/partner/nodes?${q('')}`, data(nodePageSchema)],
    [`/api/v1/partner/details?${q('partner_node_id[]=shape-1')}`, data(z.array(nodeStatusSchema))],
    [`/api/v1/partner/detail?${q('partner_node_id=shape-1')}`, data(nodeStatusSchema)],
    [`/api/v1/uptime?${q('partner_node_id=shape-1')}`, data(uptimeSchema)],
    [`/api/v1/uptimes?${q('partner_node_id[]=shape-1')}`, data(z.array(uptimeSchema))],
    [`/api/v1/partner/summary?${q('')}`, data(summarySchema)],
    [`/api/v1/uptime/series?${q(`partner_node_id=shape-1&started_at=${now - 86_400_000}&ended_at=${now}`)}`, data(seriesSchema)],
    [`/api/v1/uptime?${q('partner_node_id=ghost')}`, linkErrorSchema],
  ];
  for (const [path, schema] of stats) expectShape(schema, await (await request.get(path, { headers: auth })).json(), path);

  const created = await (
    await request.post('/organization/api/v1/alias/create', {
      headers: auth,
      data: { type: 'live', name: 'x', expired_at: Math.floor(now / 1000) + 600 },
    })
  ).json();
  expectShape(data(aliasWireSchema), created, 'create');
  expect(created.data.inserted_at).toBeUndefined();
  const read = await (await request.get(`/organization/api/v1/alias/${created.data.id}`, { headers: auth })).json();
  expectShape(data(aliasWireSchema), read, 'retrieve');
  expect(read.data.inserted_at).toEqual(expect.any(Number));
  expectShape(aliasPageSchema, await (await request.get('/organization/api/v1/aliases', { headers: auth })).json(), 'list');

  const { api_key } = await admin(['apikey', 'create', '--org', org.id, '--rpm', '100']);
  const key = { authorization: `Bearer ${api_key}` };
  expectShape(modelListSchema, await (await request.get('/api/v1/models', { headers: key })).json(), 'models');
  const chat = { model: 'triad-guide', messages: [{ role: 'user', content: 'aliases' }], max_tokens: 5 };
  expectShape(
    chatCompletionSchema,
    await (await request.post('/api/v1/chat/completions', { headers: key, data: chat })).json(),
    'completion',
  );
  const streamed = await (
    await request.post('/api/v1/chat/completions', {
      headers: key,
      data: { ...chat, stream: true, stream_options: { include_usage: true } },
    })
  ).text();
  const chunks = streamed.split('\n\n').filter((b) => b.startsWith('data: {'));
  expect(chunks.length).toBeGreaterThan(2);
  for (const c of chunks) expectShape(chatCompletionChunkSchema, JSON.parse(c.slice(6)), 'chunk');
  expectShape(
    chatErrorSchema,
    await (await request.post('/api/v1/chat/completions', { headers: key, data: { model: 'nope', messages: [] } })).json(),
    'chat error',
  );
});
