import { expect, rememberSecrets, test } from '../support/fixtures';

/*
 * Key controls (design §17), as a client meets them over HTTP: a key's allow-list of models (403
 * model_not_allowed on every API surface, the model list narrowed) and its expiry (401 naming the
 * time); set and changed through the console API and the admin CLI.
 */
const chat = (request: import('@playwright/test').APIRequestContext, key: string, model: string) =>
  request.post('/api/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}` },
    data: { model, messages: [{ role: 'user', content: 'hi' }] },
  });

test('an allow-list: other models are refused on every surface with 403, the model list shows the allowed only; null allows all again', async ({
  request,
  org,
}) => {
  const asOrg = { authorization: `Bearer ${org.token}` };
  const made = await request.post('/api/org/api-keys', { headers: asOrg, data: { name: 'echo only', models: ['fake-echo', 'fake-echo'] } });
  expect(made.status(), await made.text()).toBe(201);
  const created = (await made.json()).data;
  rememberSecrets([created.key]);
  expect(created).toMatchObject({ name: 'echo only', models: ['fake-echo'], expires_at: null });

  expect((await chat(request, created.key, 'fake-echo')).status()).toBe(200);
  const refused = await chat(request, created.key, 'triad-guide');
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toEqual({
    error: {
      message: 'This API key may not use the model `triad-guide`.',
      type: 'permission_error',
      code: 'model_not_allowed',
      param: 'model',
    },
  });
  const auth = { authorization: `Bearer ${created.key}` };
  // The Responses API, Anthropic's Messages API (in its own error shape) and embeddings refuse it alike.
  const responses = await request.post('/api/v1/responses', { headers: auth, data: { model: 'triad-guide', input: 'hi' } });
  expect(responses.status()).toBe(403);
  expect((await responses.json()).error.code).toBe('model_not_allowed');
  const messages = await request.post('/api/v1/messages', {
    headers: { 'x-api-key': created.key, 'anthropic-version': '2023-06-01' },
    data: { model: 'triad-guide', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(messages.status()).toBe(403);
  expect(await messages.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
  const embeddings = await request.post('/api/v1/embeddings', { headers: auth, data: { model: 'fake-embed', input: 'hi' } });
  expect(embeddings.status()).toBe(403);

  // The model list: the allowed only.
  const listed = (await (await request.get('/api/v1/models', { headers: auth })).json()).data.map((m: { id: string }) => m.id);
  expect(listed).toEqual(['fake-echo']);

  // Every model again (null), at once on this instance.
  const changed = await request.patch(`/api/org/api-keys/${created.id}`, { headers: asOrg, data: { models: null } });
  expect(changed.status(), await changed.text()).toBe(200);
  expect((await changed.json()).data).toMatchObject({ id: created.id, models: null });
  expect((await chat(request, created.key, 'triad-guide')).status()).toBe(200);
  expect((await (await request.get('/api/v1/models', { headers: auth })).json()).data.length).toBeGreaterThan(1);

  // The change is in the audit log.
  const log = (await (await request.get('/api/org/audit?action=api_key.update', { headers: asOrg })).json()).data;
  expect(log[0]).toMatchObject({ action: 'api_key.update', object: `api_key:${created.id}`, detail: { models: null } });
});

test('an expiry: the key works until then, and is refused with 401 naming the time after it', async ({ request, org }) => {
  const asOrg = { authorization: `Bearer ${org.token}` };
  const at = Math.floor(Date.now() / 1000) + 3;
  const created = (await (await request.post('/api/org/api-keys', { headers: asOrg, data: { name: 'brief', expires_at: at } })).json())
    .data;
  rememberSecrets([created.key]);
  expect(created.expires_at).toBe(at);
  expect((await chat(request, created.key, 'triad-guide')).status()).toBe(200);
  // Past the time, refused (polled, not slept: the answer changes when the time comes).
  await expect
    .poll(async () => (await chat(request, created.key, 'triad-guide')).status(), { timeout: 10_000, intervals: [250] })
    .toBe(401);
  const body = await (await chat(request, created.key, 'triad-guide')).json();
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
  expect(body.error.message).toBe(`This API key expired at ${new Date(at * 1000).toISOString()}.`);
  // The console lists it with its expiry.
  const listed = (await (await request.get('/api/org/api-keys', { headers: asOrg })).json()).data.find(
    (k: { id: string }) => k.id === created.id,
  );
  expect(listed).toMatchObject({ expires_at: at, models: null });
});

test('bad controls are refused with 400 in the link format; another organization’s key is not found; nothing changes', async ({
  request,
  org,
  admin,
}) => {
  const asOrg = { authorization: `Bearer ${org.token}` };
  const created = (await (await request.post('/api/org/api-keys', { headers: asOrg, data: { name: 'kept', models: ['a'] } })).json()).data;
  rememberSecrets([created.key]);
  for (const [data, detail] of [
    [{ models: [] }, 'models lists at least one model'],
    [{ models: 'a,b' }, 'models is a list of model names'],
    [{ expires_at: 1_000_000 }, 'expires_at is in the past'],
    [{ expires_at: '2030-01-01' }, 'expires_at is Unix seconds'],
    [{}, 'give models, expires_at, budget_usd, budget_period or preferences'],
  ] as const) {
    const res = await request.patch(`/api/org/api-keys/${created.id}`, { headers: asOrg, data });
    expect(res.status(), JSON.stringify(data)).toBe(400);
    const body = await res.json();
    expect(body.error.message).toBe('INVALID_PARAMETERS');
    expect(body.error.detail).toContain(detail);
  }
  const other = await admin(['org', 'create', '--name', 'key controls: another organization']);
  const foreign = await request.patch(`/api/org/api-keys/${created.id}`, {
    headers: { authorization: `Bearer ${other.org_token}` },
    data: { models: null },
  });
  expect(foreign.status()).toBe(404);
  const listed = (await (await request.get('/api/org/api-keys', { headers: asOrg })).json()).data.find(
    (k: { id: string }) => k.id === created.id,
  );
  expect(listed.models).toEqual(['a']);
});

test('the admin CLI makes a key with an allow-list and an expiry, and changes them', async ({ request, org, admin }) => {
  const at = Math.floor(Date.now() / 1000) + 86_400;
  const made = await admin([
    'apikey',
    'create',
    '--org',
    org.id,
    '--label',
    'cli',
    '--models',
    'fake-echo,triad-guide',
    '--expires-at',
    String(at),
  ]);
  const key = made.api_key as string;
  expect((await chat(request, key, 'fake-agent')).status()).toBe(403);
  expect((await chat(request, key, 'fake-echo')).status()).toBe(200);
  const updated = await admin(['apikey', 'update', '--id', made.api_key_id as string, '--models', 'none', '--expires-at', 'none']);
  expect(updated).toMatchObject({ models: null, expires_at: null });
  // The CLI is another process: this server sees the change within its credential cache's time.
  await expect.poll(async () => (await chat(request, key, 'fake-agent')).status(), { timeout: 15_000 }).toBe(200);
  await expect(admin(['apikey', 'update', '--id', made.api_key_id as string, '--expires-at', '12'])).rejects.toThrow(
    /expires_at is in the past/,
  );
});

test('the admin CLI sets a budget and default routing on a key, and a budget on the organization; bad values name the flag', async ({
  request,
  org,
  admin,
}) => {
  const made = await admin([
    ...['apikey', 'create', '--org', org.id, '--label', 'cli-budget'],
    ...['--budget-usd', '2.5', '--budget-period', 'week', '--preferences', '{"sort":"price"}'],
  ]);
  const key = made.api_key as string;
  const info = (await (await request.get('/api/v1/key', { headers: { authorization: `Bearer ${key}` } })).json()).data;
  expect(info).toMatchObject({ label: 'cli-budget', limit: 2.5, limit_remaining: 2.5, limit_reset: 'weekly' });
  expect((await chat(request, key, 'fake-echo')).status()).toBe(200); // routed by its default preference
  const changed = await admin(['apikey', 'update', '--id', made.api_key_id as string, '--budget-usd', 'none', '--preferences', 'none']);
  expect(changed).toMatchObject({ budget_usd: null, budget_period: null, preferences: null });
  const orgBudget = await admin(['org', 'update', '--org', org.id, '--budget-usd', '40', '--budget-period', 'month']);
  expect(orgBudget).toMatchObject({ org_id: org.id, budget: { usd: '40', period: 'month', spent: '0' } });
  await expect(admin(['apikey', 'update', '--id', made.api_key_id as string, '--budget-usd', '-3'])).rejects.toThrow(/--budget-usd/);
  await expect(admin(['apikey', 'update', '--id', made.api_key_id as string, '--preferences', '{"sort":"fast"}'])).rejects.toThrow(
    /--preferences/,
  );
  await admin(['org', 'update', '--org', org.id, '--budget-usd', 'none']);
});

test('a budget through the console API: set on a key and on the organization, shown with its spend, refused when malformed, audited', async ({
  request,
  org,
}) => {
  const asOrg = { authorization: `Bearer ${org.token}` };
  const made = await request.post('/api/org/api-keys', { headers: asOrg, data: { name: 'budgeted', budget_usd: 0.25 } });
  expect(made.status(), await made.text()).toBe(201);
  const created = (await made.json()).data;
  rememberSecrets([created.key]);
  // An amount without a period: a month.
  expect(created).toMatchObject({ budget_usd: '0.25', budget_period: 'month' });
  const listed = (await (await request.get('/api/org/api-keys', { headers: asOrg })).json()).data.find(
    (k: { id: string }) => k.id === created.id,
  );
  expect(listed.budget).toMatchObject({ usd: '0.25', period: 'month', spent: '0', remaining: '0.25' });
  expect(new Date(listed.budget.resets_at).getUTCDate()).toBe(1);

  for (const [data, message] of [
    [{ budget_usd: '-1' }, 'budget_usd is a non-negative amount of USD'],
    [{ budget_usd: '1e3' }, 'budget_usd is a non-negative amount of USD'],
    [{ budget_usd: '2000000' }, 'budget_usd is at most 1000000'],
    [{ budget_usd: '1', budget_period: 'year' }, 'budget_period is day, week, month or total'],
    [{ budget_usd: null, budget_period: 'day' }, 'give no budget_period with it'],
  ] as const) {
    const res = await request.patch(`/api/org/api-keys/${created.id}`, { headers: asOrg, data });
    expect(res.status(), JSON.stringify(data)).toBe(400);
    expect((await res.json()).error.detail).toContain(message);
  }
  const changed = await request.patch(`/api/org/api-keys/${created.id}`, { headers: asOrg, data: { budget_period: 'total' } });
  expect((await changed.json()).data.budget).toMatchObject({ usd: '0.25', period: 'total', resets_at: null });
  const key = (await (await request.get('/api/v1/key', { headers: { authorization: `Bearer ${created.key}` } })).json()).data;
  expect(key).toMatchObject({ label: 'budgeted', limit: 0.25, limit_reset: null, organization: { limit: null } });

  // The organization's budget: set, shown on every key's report, removed.
  const set = await request.patch('/api/org/settings', { headers: asOrg, data: { budget_usd: '3', budget_period: 'week' } });
  expect(set.status(), await set.text()).toBe(200);
  expect((await set.json()).data).toMatchObject({ network_nodes: true, budget: { usd: '3', period: 'week', spent: '0' } });
  const again = (await (await request.get('/api/v1/key', { headers: { authorization: `Bearer ${created.key}` } })).json()).data;
  expect(again.organization).toMatchObject({ limit: 3, limit_remaining: 3, limit_reset: 'weekly' });
  expect((await (await request.patch('/api/org/settings', { headers: asOrg, data: { budget_usd: null } })).json()).data.budget).toBeNull();
  const log = (await (await request.get('/api/org/audit?action=organization.update_settings', { headers: asOrg })).json()).data;
  expect(log[0].detail).toEqual({ budget_usd: null });
});
