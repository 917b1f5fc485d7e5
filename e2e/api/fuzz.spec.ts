import type { APIRequestContext } from '@playwright/test';
import fc from 'fast-check';
import { expect, test } from '../support/fixtures';
import { checkShape, type Group, mostly, nasty, rawBody, words } from '../support/fuzz';

/*
 * Property-based fuzzing of the API's endpoints over HTTP (the administrator's: ../lifecycle/admin-fuzz.spec.ts): malformed
 * JSON, wrong types, huge, negative and fractional numbers, unicode and control characters, repeated
 * and missing query parameters, bad Authorization forms. Whatever comes in: never a 5xx, every error in its group's documented
 * shape, and nothing stored changes unless the request succeeded. Fixed seed, bounded runs
 * (FUZZ_RUNS to run longer).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = Number(process.env.FUZZ_SEED ?? 20261121);

type Endpoint = {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: (id: string) => string;
  group: Group;
  params: string[];
  body?: boolean;
  mutates?: boolean;
};

const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: () => '/api/v1/chat/completions', group: 'chat', params: [], body: true },
  { method: 'POST', path: () => '/api/v1/responses', group: 'chat', params: [], body: true },
  { method: 'GET', path: (id) => `/api/v1/responses/${id}`, group: 'chat', params: [] },
  { method: 'GET', path: (id) => `/api/v1/responses/${id}/input_items`, group: 'chat', params: ['limit', 'order', 'after'] },
  { method: 'POST', path: () => '/api/v1/messages', group: 'anthropic', params: [], body: true },
  { method: 'POST', path: () => '/api/v1/messages/count_tokens', group: 'anthropic', params: [], body: true },
  { method: 'POST', path: () => '/api/v1/embeddings', group: 'chat', params: [], body: true },
  { method: 'GET', path: () => '/api/v1/models', group: 'chat', params: [] },
  { method: 'GET', path: (id) => `/api/v1/models/${id}`, group: 'chat', params: [] },
  { method: 'GET', path: () => '/api/v1/key', group: 'chat', params: [] },
  { method: 'GET', path: () => '/api/v1/usage', group: 'chat', params: [] },
  { method: 'GET', path: () => '/api/v1/partner/nodes', group: 'link', params: ['secret', 'partner_node_id', 'after', 'limit'] },
  { method: 'GET', path: () => '/api/v1/uptime', group: 'link', params: ['secret', 'partner_node_id', 'started_at', 'ended_at'] },
  { method: 'GET', path: () => '/api/v1/uptimes', group: 'link', params: ['secret', 'partner_node_id[]', 'started_at', 'ended_at'] },
  { method: 'GET', path: () => '/api/v1/partner/details', group: 'link', params: ['secret', 'partner_node_id[]'] },
  { method: 'GET', path: () => '/api/v1/partner/detail', group: 'link', params: ['secret', 'partner_node_id'] },
  { method: 'GET', path: () => '/api/v1/partner/summary', group: 'link', params: ['secret'] },
  { method: 'GET', path: () => '/api/v1/partner/earnings', group: 'link', params: ['secret', 'partner_node_id', 'started_at', 'ended_at'] },
  {
    method: 'GET',
    path: () => '/api/v1/uptime/series',
    group: 'link',
    params: ['secret', 'partner_node_id', 'started_at', 'ended_at', 'bucket'],
  },
  { method: 'POST', path: () => '/api/v1/node/register', group: 'link', params: [], body: true, mutates: true },
  { method: 'POST', path: () => '/api/v1/node/events', group: 'link', params: [], body: true, mutates: true },
  { method: 'POST', path: () => '/organization/api/v1/alias/create', group: 'link', params: [], body: true, mutates: true },
  { method: 'GET', path: () => '/organization/api/v1/aliases', group: 'link', params: ['type', 'after', 'limit', 'q'] },
  { method: 'GET', path: (id) => `/organization/api/v1/alias/${id}`, group: 'link', params: ['passcode'] },
  { method: 'POST', path: (id) => `/organization/api/v1/alias/update/${id}`, group: 'link', params: [], body: true, mutates: true },
  { method: 'DELETE', path: (id) => `/organization/api/v1/alias/delete/${id}`, group: 'link', params: [], mutates: true },
  { method: 'POST', path: () => '/api/credentials/check', group: 'link', params: [], body: true },
  // The console's calls (with the org token as a bearer; the cookie path shares their handlers).
  { method: 'POST', path: () => '/api/session', group: 'link', params: [], body: true },
  { method: 'GET', path: () => '/api/org/api-keys', group: 'link', params: [] },
  { method: 'POST', path: () => '/api/org/api-keys', group: 'link', params: [], body: true, mutates: true },
  { method: 'DELETE', path: (id) => `/api/org/api-keys/${id}`, group: 'link', params: [], mutates: true },
  { method: 'POST', path: () => '/api/org/partners', group: 'link', params: [], body: true, mutates: true },
  { method: 'POST', path: (id) => `/api/org/partners/${id}/rotate-secret`, group: 'link', params: [], mutates: true },
  {
    method: 'GET',
    path: () => '/api/org/usage',
    group: 'link',
    params: ['started_at', 'ended_at', 'bucket', 'group_by', 'api_key_id', 'model'],
  },
  { method: 'GET', path: () => '/api/org/audit', group: 'link', params: ['limit', 'before'] },
  {
    method: 'GET',
    path: () => '/api/org/requests',
    group: 'link',
    params: ['limit', 'after', 'api_key_id', 'model', 'endpoint', 'status', 'request_id', 'started_at', 'ended_at'],
  },
  { method: 'PATCH', path: (id) => `/api/org/api-keys/${id}`, group: 'link', params: [], body: true, mutates: true },
  { method: 'GET', path: () => '/api/org/tokens', group: 'link', params: [] },
  { method: 'POST', path: () => '/api/org/tokens', group: 'link', params: [], body: true, mutates: true },
  { method: 'DELETE', path: (id) => `/api/org/tokens/${id}`, group: 'link', params: [], mutates: true },
  { method: 'GET', path: (id) => `/api/org/partners/${id}/tunnels`, group: 'link', params: [] },
  { method: 'PATCH', path: (id) => `/api/org/partners/${id}/nodes/${id}`, group: 'link', params: [], body: true, mutates: true },
  { method: 'GET', path: () => '/api/org/settings', group: 'link', params: [] },
  { method: 'PATCH', path: () => '/api/org/settings', group: 'link', params: [], body: true, mutates: true },
  { method: 'DELETE', path: (id) => `/api/v1/responses/${id}`, group: 'chat', params: [], mutates: true },
  { method: 'GET', path: () => '/api/instance/organizations', group: 'link', params: [] },
];

const served = mostly(fc.constantFrom('fake-echo', 'fake-agent', 'fake-no-usage', 'triad-guide'));
const weatherSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const callId = fc.stringMatching(/^call_[a-z0-9]{1,8}$/);

const responsesItem = fc.oneof(
  fc.record({ role: mostly(fc.constantFrom('user', 'assistant', 'system', 'developer')), content: mostly(words) }),
  fc.record({
    type: fc.constant('message'),
    role: mostly(fc.constantFrom('user', 'assistant')),
    content: fc.array(
      fc.oneof(
        fc.record({ type: mostly(fc.constantFrom('input_text', 'output_text')), text: mostly(words) }),
        fc.record({ type: fc.constant('input_image'), image_url: mostly(fc.constant('data:image/png;base64,iVBORw0KGgo=')) }),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    type: fc.constant('function_call'),
    call_id: mostly(callId),
    name: mostly(fc.constant('get_weather')),
    arguments: mostly(fc.constant('{"city":"Paris"}')),
  }),
  fc.record({ type: fc.constant('function_call_output'), call_id: mostly(callId), output: mostly(words) }),
  fc.record(
    {
      type: mostly(fc.constantFrom('reasoning', 'item_reference', 'custom_tool_call')),
      id: nasty,
      summary: fc.array(fc.record({ type: fc.constant('summary_text'), text: words }), { maxLength: 1 }),
    },
    { requiredKeys: ['type'] },
  ),
);
const responsesBody = fc.record(
  {
    model: served,
    input: mostly(fc.oneof(words, fc.array(responsesItem, { minLength: 1, maxLength: 4 }))),
    instructions: mostly(words),
    stream: mostly(fc.boolean()),
    store: fc.boolean(),
    max_output_tokens: mostly(fc.integer({ min: 1, max: 100 })),
    tools: mostly(
      fc.array(
        fc.oneof(
          fc.record({
            type: fc.constant('function'),
            name: mostly(fc.constantFrom('get_weather', 'search')),
            parameters: mostly(fc.constant(weatherSchema)),
          }),
          fc.record({ type: mostly(fc.constantFrom('custom', 'web_search', 'tool_search')), name: mostly(fc.constant('apply_patch')) }),
        ),
        { maxLength: 2 },
      ),
    ),
    tool_choice: mostly(
      fc.oneof(
        fc.constantFrom('auto', 'required', 'none'),
        fc.record({ type: fc.constant('function'), name: fc.constantFrom('get_weather', 'missing') }),
      ),
    ),
    text: mostly(
      fc.record({
        format: fc.oneof(
          fc.record({ type: fc.constant('json_object') }),
          fc.record({ type: fc.constant('json_schema'), name: fc.constant('w'), schema: fc.constant(weatherSchema) }),
        ),
      }),
    ),
    reasoning: mostly(fc.record({ effort: mostly(fc.constantFrom('low', 'medium', 'high')) })),
  },
  { requiredKeys: ['model', 'input'] },
);

const toolUseId = fc.stringMatching(/^toolu_[a-z0-9]{1,8}$/);
const messagesBlock = fc.oneof(
  fc.record({ type: fc.constant('text'), text: mostly(words) }),
  fc.record({
    type: fc.constant('image'),
    source: mostly(
      fc.record({ type: fc.constant('base64'), media_type: mostly(fc.constant('image/png')), data: mostly(fc.constant('iVBORw0KGgo=')) }),
    ),
  }),
  fc.record({
    type: fc.constant('tool_use'),
    id: mostly(toolUseId),
    name: mostly(fc.constant('get_weather')),
    input: mostly(fc.constant({ city: 'Paris' })),
  }),
  fc.record(
    {
      type: fc.constant('tool_result'),
      tool_use_id: mostly(toolUseId),
      content: mostly(fc.oneof(words, fc.array(fc.record({ type: fc.constant('text'), text: words }), { maxLength: 2 }))),
      is_error: fc.boolean(),
    },
    { requiredKeys: ['type', 'tool_use_id'] },
  ),
  fc.record({ type: fc.constant('thinking'), thinking: mostly(words), signature: words }),
  fc.record(
    { type: mostly(fc.constantFrom('tool_reference', 'document', 'redacted_thinking')), tool_name: nasty, data: nasty },
    { requiredKeys: ['type'] },
  ),
);
const messagesBody = fc.record(
  {
    model: served,
    max_tokens: mostly(fc.integer({ min: 1, max: 200 })),
    system: mostly(fc.oneof(words, fc.array(fc.record({ type: fc.constant('text'), text: words }), { maxLength: 2 }))),
    messages: mostly(
      fc.array(
        fc.record({
          role: mostly(fc.constantFrom('user', 'assistant')),
          content: mostly(fc.oneof(words, fc.array(messagesBlock, { minLength: 1, maxLength: 3 }))),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    ),
    tools: mostly(
      fc.array(
        fc.record(
          {
            name: mostly(fc.constantFrom('get_weather', 'Read')),
            description: words,
            input_schema: mostly(fc.constant(weatherSchema)),
            defer_loading: fc.boolean(),
          },
          { requiredKeys: ['name', 'input_schema'] },
        ),
        { maxLength: 2 },
      ),
    ),
    tool_choice: mostly(
      fc.record(
        { type: mostly(fc.constantFrom('auto', 'any', 'tool', 'none')), name: fc.constantFrom('get_weather', 'missing') },
        { requiredKeys: ['type'] },
      ),
    ),
    thinking: mostly(
      fc.record({ type: mostly(fc.constantFrom('enabled', 'disabled')), budget_tokens: mostly(fc.integer({ min: 1024, max: 4096 })) }),
    ),
    stream: mostly(fc.boolean()),
    temperature: mostly(fc.double({ min: 0, max: 1, noNaN: true })),
  },
  { requiredKeys: ['model', 'messages'] },
);

const embeddingsBody = fc.record(
  {
    model: mostly(fc.constantFrom('fake-embed', 'fake-echo')),
    input: mostly(
      fc.oneof(
        words,
        fc.array(words, { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(fc.nat(1000), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 }),
      ),
    ),
    encoding_format: mostly(fc.constantFrom('float', 'base64')),
    dimensions: mostly(fc.integer({ min: 1, max: 64 })),
  },
  { requiredKeys: ['model', 'input'] },
);

/**
 * The bodies of the routes with a large request schema: mostly well-formed, each field now and then
 * nasty, so that they reach the translators and the model server (a third of their cases are rawBody's).
 */
const ownBody: Record<string, fc.Arbitrary<unknown>> = {
  '/api/v1/responses': responsesBody,
  '/api/v1/messages': messagesBody,
  '/api/v1/messages/count_tokens': messagesBody,
  '/api/v1/embeddings': embeddingsBody,
};
const bodyFor = (e: Endpoint) => {
  const own = ownBody[e.path('')];
  return own ? fc.oneof({ weight: 2, arbitrary: own.map((v) => JSON.stringify(v)) }, rawBody) : rawBody;
};

async function snapshot(request: APIRequestContext, token: string, secret: string, aliasId: string) {
  const auth = { authorization: `Bearer ${token}` };
  // The run may have spent a rate limit: a 429 is waited out (its Retry-After), what is stored is what counts here.
  const read = async (url: string) => {
    for (let attempt = 0; ; attempt++) {
      const res = await request.get(url, { headers: auth });
      if (res.status() !== 429 || attempt === 5) return res.json();
      await new Promise((r) => setTimeout(r, 1000 * Number(res.headers()['retry-after'] ?? 1)));
    }
  };
  const aliases = await read('/organization/api/v1/aliases?limit=500');
  const alias = await read(`/organization/api/v1/alias/${aliasId}`);
  const nodes = await read(`/api/v1/partner/nodes?secret=${secret}&limit=500`);
  return {
    aliasCount: aliases.entries.length,
    alias,
    nodes: nodes.data.entries.map((n: { external_id: string; unit_shared: string; usd_earned: string }) => [
      n.external_id,
      n.unit_shared,
      n.usd_earned,
    ]),
  };
}

test('fuzz: no 5xx, errors in their documented shape, nothing stored changes on a refused request', async ({
  request,
  admin,
  org,
  baseURL,
}) => {
  // About 150 cases a second here; a long run (FUZZ_RUNS in the thousands) gets the time it needs.
  test.setTimeout(Math.max(240_000, RUNS * ENDPOINTS.length * 25));
  const { api_key } = await admin(['apikey', 'create', '--org', org.id, '--rpm', '100000']);
  const { partner_secret, partner_id } = await admin(['partner', 'create', '--org', org.id, '--name', 'Fuzz']);
  await admin(['node', 'register', '--partner', partner_id!, '--external-id', 'fuzz-node']);
  const created = await request.post('/organization/api/v1/alias/create', {
    headers: { authorization: `Bearer ${org.token}` },
    data: { type: 'live', passcode: 'keep-me', expired_at: Math.floor(Date.now() / 1000) + 86_400 },
  });
  const aliasId = (await created.json()).data.id as string;
  const before = await snapshot(request, org.token, partner_secret!, aliasId);

  const authFor = (e: Endpoint) => (e.group === 'link' ? org.token : api_key!);
  const authHeader = (e: Endpoint) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant<string | undefined>(`Bearer ${authFor(e)}`) },
      fc.constant<string | undefined>(undefined),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Basic Zm9vOmJhcg==',
        `bearer ${authFor(e)} extra`,
        'Bearer eyJhbGciOiJub25lIn0.e30.',
        'Bearer ' + 'x'.repeat(5000),
      ),
      // Headers carry visible ASCII only (a client cannot send more).
      nasty.map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, '')}`),
    );
  const query = (e: Endpoint) =>
    fc.array(
      fc.tuple(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...(e.params.length ? e.params : ['x'])) },
          fc.constantFrom('secret', 'zzz', '__proto__', 'constructor'),
        ),
        fc.oneof({ weight: 2, arbitrary: fc.constant(partner_secret!) }, fc.constant('fuzz-node'), nasty),
      ),
      { maxLength: 6 },
    );
  const pathId = fc.oneof(
    fc.constant(aliasId),
    fc.stringMatching(/^[a-z0-9]{10}$/),
    nasty.map((s) => encodeURIComponent(s.toWellFormed()).slice(0, 300) || 'x'), // (a URL carries no half surrogate pair)
  );

  let mutations = 0;
  const property = fc.asyncProperty(
    fc.constantFrom(...ENDPOINTS).chain((e) => fc.tuple(fc.constant(e), authHeader(e), query(e), bodyFor(e), pathId)),
    async ([e, authorization, params, body, id]) => {
      const qs = new URLSearchParams(params.map(([k, v]) => [k, v.replace(/\u0000/g, '')] as [string, string])).toString();
      const url = `${e.path(id)}${qs ? `?${qs}` : ''}`;
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) };
      // Node's fetch rather than Playwright's request context, which keeps every reply until the test ends.
      const res = await fetch(new URL(url, baseURL), { method: e.method, headers, body: e.body ? Buffer.from(body) : undefined });
      checkShape({ status: res.status, text: await res.text() }, e.group, `${e.method} ${url.slice(0, 200)} body ${body.slice(0, 200)}`);
      if (e.mutates && res.status < 400) mutations++;
    },
  );
  await fc.assert(property, { numRuns: RUNS * ENDPOINTS.length, seed: SEED, endOnFailure: true });

  const after = await snapshot(request, org.token, partner_secret!, aliasId);
  // The alias made before the run and the node's earnings only change through a request that succeeded.
  if (mutations === 0) expect(after).toEqual(before);
  else expect(after.nodes.find((n: string[]) => n[0] === 'fuzz-node')).toEqual(before.nodes.find((n: string[]) => n[0] === 'fuzz-node'));
  console.log(`fuzz: seed ${SEED}, ${RUNS * ENDPOINTS.length} requests, ${mutations} accepted writes, no 5xx`);
});

test('a NUL in any path parameter of any route: a 4xx in its group’s shape, never a 5xx', async ({ request, admin, org, baseURL }) => {
  // Every route the OpenAPI document lists with a parameter in its path, with the credential it asks for.
  const { api_key } = await admin(['apikey', 'create', '--org', org.id]);
  const { admin_token } = await admin(['admin-token', 'create', '--label', 'path NUL']);
  const credential: Record<string, string> = { apiKey: api_key!, orgToken: org.token, adminToken: admin_token as string };
  const doc = (await (await request.get('/api/openapi.json')).json()) as {
    paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
  };
  const operations = Object.entries(doc.paths)
    .filter(([p]) => p.includes('{'))
    .flatMap(([p, ops]) => Object.entries(ops).map(([method, op]) => ({ path: p, method: method.toUpperCase(), op })));
  expect(operations.length).toBeGreaterThan(12);
  for (const { path, method, op } of operations) {
    const scheme = op.security?.map((s) => Object.keys(s)[0]).find((name) => name && credential[name]);
    const group: Group = /^\/api\/v1\/(responses|models)\b/.test(path) ? 'chat' : 'link';
    for (const id of ['%00', 'a%00b']) {
      const url = path.replace(/\{\w+\}/g, id);
      const res = await fetch(new URL(url, baseURL), {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credential[scheme ?? 'orgToken']}` },
        body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
      });
      const text = await res.text();
      checkShape({ status: res.status, text }, group, `${method} ${url}`);
      expect(res.status, `${method} ${url}: ${text}`).toBeGreaterThanOrEqual(400);
    }
  }
});
