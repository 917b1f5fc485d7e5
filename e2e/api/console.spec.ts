import { type APIRequestContext, request as playwrightRequest } from '@playwright/test';
import { rememberSecrets } from '../../scripts/lib/admin-cli';
import { expect, test } from '../support/fixtures';

/*
 * The console's calls (design §11) over HTTP: sign-in and sessions, the cookie's flags, CSRF and
 * Origin checks, organizations' isolation (a matrix generated from the OpenAPI document), suspension,
 * usage counts and the audit log.
 */
type Signed = { ctx: APIRequestContext; csrf: string; secret: string; origin: string; close: () => Promise<void> };

async function signIn(baseURL: string, token: string): Promise<Signed> {
  const ctx = await playwrightRequest.newContext({ baseURL });
  const origin = new URL(baseURL).origin;
  const res = await ctx.post('/api/session', { data: { token }, headers: { origin } });
  expect(res.status(), await res.text()).toBe(200);
  const cookie = res.headers()['set-cookie']!;
  const secret = /triad_session=([^;]+)/.exec(cookie)![1]!;
  const csrf = (await res.json()).data.csrf_token as string;
  rememberSecrets([secret, csrf]);
  return { ctx, csrf, secret, origin, close: () => ctx.dispose() };
}

type Op = { method: string; path: string };
/** The console's operations, as the server's OpenAPI document lists them. */
async function consoleOperations(ctx: APIRequestContext): Promise<Op[]> {
  const doc = (await (await ctx.get('/api/openapi.json')).json()) as { paths: Record<string, Record<string, { tags: string[] }>> };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op.tags.includes('Console'))
      .map(([method]) => ({ method, path })),
  );
}

/** A state-changing console call as the dashboard makes it: the cookie, X-CSRF-Token and this server's Origin. */
const send = (s: Signed, method: string, path: string, data?: unknown, headers: Record<string, string> = {}) =>
  s.ctx.fetch(path, { method, data, headers: { origin: s.origin, 'x-csrf-token': s.csrf, ...headers } });

test('sign-in sets an HttpOnly, SameSite=Lax session cookie and tells who is signed in; bad tokens and other sites are refused', async ({
  baseURL,
  org,
  request,
}) => {
  const origin = new URL(baseURL!).origin;
  const res = await request.post('/api/session', { data: { token: org.token }, headers: { origin, 'x-forwarded-proto': 'https' } });
  expect(res.status()).toBe(200);
  const cookie = res.headers()['set-cookie']!;
  rememberSecrets([/triad_session=([^;]+)/.exec(cookie)![1]!]);
  expect(cookie).toMatch(/^triad_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
  // Not Secure over plain HTTP, and X-Forwarded-Proto is believed only with TRIAD_TRUST_PROXY=1.
  expect(cookie).not.toContain('Secure');
  const body = (await res.json()).data;
  expect(body).toMatchObject({ role: 'org', organization: { id: org.id }, csrf_token: expect.any(String) });
  expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(7 * 86_400_000);
  expect(Date.parse(body.idle_expires_at) - Date.parse(body.created_at)).toBe(12 * 3_600_000);
  expect(JSON.stringify(body)).not.toContain(org.token);

  const who = await request.get('/api/session');
  expect(who.status()).toBe(200);
  expect((await who.json()).data.id).toBe(body.id);
  // Nobody signed in is an answer, not an error (a first visit's page asks it).
  const nobody = await fetch(new URL('/api/session', baseURL).toString());
  expect(nobody.status).toBe(200);
  expect(await nobody.json()).toEqual({ data: null });
  expect(nobody.headers.get('set-cookie')).toBeNull();

  for (const token of ['org_nope', 'sk_live_x', 'adm_x', '']) {
    const bad = await request.post('/api/session', { data: { token }, headers: { origin } });
    expect([400, 401]).toContain(bad.status());
    expect((await bad.json()).error).toMatchObject({ status: bad.status() });
  }
  const foreign = await request.post('/api/session', { data: { token: org.token }, headers: { origin: 'https://evil.example' } });
  expect(foreign.status()).toBe(403);
  expect((await foreign.json()).error.message).toBe('FORBIDDEN');
});

test("a cookie call that changes something needs the CSRF token and this server's Origin; bearer calls need neither", async ({
  baseURL,
  org,
  request,
}) => {
  const s = await signIn(baseURL!, org.token);
  const create = (headers: Record<string, string>, data: unknown = { name: 'k' }) => s.ctx.post('/api/org/api-keys', { data, headers });
  // No token; a wrong one; another session's; another site's Origin; no Origin; a cross-site form post.
  const other = await signIn(baseURL!, org.token);
  const refused = [
    await create({ origin: s.origin }),
    await create({ origin: s.origin, 'x-csrf-token': 'x'.repeat(43) }),
    await create({ origin: s.origin, 'x-csrf-token': other.csrf }),
    await create({ origin: 'http://evil.example', 'x-csrf-token': s.csrf }),
    await create({ 'x-csrf-token': s.csrf }),
    await s.ctx.post('/api/org/api-keys', { form: { name: 'k' }, headers: { origin: 'http://evil.example' } }),
    await s.ctx.delete('/api/session', { headers: { origin: 'http://evil.example' } }),
  ];
  for (const r of refused) {
    expect(r.status()).toBe(403);
    expect((await r.json()).error).toMatchObject({ message: 'FORBIDDEN', status: 403 });
  }
  // Nothing was made, and the session still works.
  const keys = await s.ctx.get('/api/org/api-keys');
  expect(keys.status()).toBe(200);
  expect((await keys.json()).data).toEqual([]);
  // The chat API with the cookie (the playground) is a state-changing call too.
  const chat = await s.ctx.post('/api/v1/chat/completions', {
    data: { model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(chat.status()).toBe(403);
  expect((await chat.json()).error).toMatchObject({ type: 'permission_error', code: 'forbidden' });

  const ok = await create({ origin: s.origin, 'x-csrf-token': s.csrf });
  expect(ok.status()).toBe(201);
  rememberSecrets([(await ok.json()).data.key]);
  // Bearer: no cookie, no CSRF token, no Origin.
  const bearer = await request.post('/api/org/api-keys', {
    data: { name: 'b' },
    headers: { authorization: `Bearer ${org.token}`, cookie: '' },
  });
  expect(bearer.status()).toBe(201);
  rememberSecrets([(await bearer.json()).data.key]);
  await s.close();
  await other.close();
});

test('signed-out, signed-out-everywhere, revoked-token and unknown sessions are refused', async ({ baseURL, org, admin }) => {
  const a = await signIn(baseURL!, org.token);
  expect((await send(a, 'DELETE', '/api/session')).status()).toBe(200);
  const r = await a.ctx.get('/api/org/api-keys', { headers: { cookie: `triad_session=${a.secret}` } });
  expect(r.status()).toBe(401);
  expect((await r.json()).error.message).toBe('UNAUTHORIZED');
  // "Who is signed in" answers nobody for an ended session (and removes its cookie).
  const who = await a.ctx.get('/api/session', { headers: { cookie: `triad_session=${a.secret}` } });
  expect(who.status()).toBe(200);
  expect(await who.json()).toEqual({ data: null });

  const b = await signIn(baseURL!, org.token);
  const c = await signIn(baseURL!, org.token);
  const ended = await send(b, 'POST', '/api/session/end-all');
  expect((await ended.json()).data.sessions_ended).toBeGreaterThanOrEqual(2);
  expect((await c.ctx.get('/api/org/api-keys')).status()).toBe(401);

  const { org_token: second } = await admin(['token', 'create', '--org', org.id]);
  const d = await signIn(baseURL!, second!);
  expect((await d.ctx.get('/api/org/api-keys')).status()).toBe(200);
  await admin(['token', 'revoke', '--token', second!]);
  expect((await d.ctx.get('/api/org/api-keys')).status()).toBe(401);

  const unknown = await a.ctx.get('/api/org/partners', { headers: { cookie: 'triad_session=' + 'A'.repeat(43) } });
  expect(unknown.status()).toBe(401);
  for (const s of [a, b, c, d]) await s.close();
});

test('a key created in the console serves chat, its usage is counted exactly, and once revoked it is refused', async ({ baseURL, org }) => {
  const s = await signIn(baseURL!, org.token);
  const created = await send(s, 'POST', '/api/org/api-keys', { name: 'curl', rpm: 500 });
  expect(created.status()).toBe(201);
  const { key, id, prefix } = (await created.json()).data;
  rememberSecrets([key]);
  expect(key.startsWith(prefix)).toBe(true);
  const chat = (stream = false) =>
    s.ctx.post('/api/v1/chat/completions', {
      headers: { authorization: `Bearer ${key}`, cookie: '' },
      data: {
        model: 'triad-guide',
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
        messages: [{ role: 'user', content: 'What is an alias?' }],
      },
    });
  const served = { prompt: 0, completion: 0 };
  for (let i = 0; i < 3; i++) {
    const r = await chat();
    expect(r.status()).toBe(200);
    const u = (await r.json()).usage;
    served.prompt += u.prompt_tokens;
    served.completion += u.completion_tokens;
  }
  const stream = await chat(true);
  expect(stream.status()).toBe(200);
  const usageEvent = (await stream.text())
    .split('\n\n')
    .map((e) => e.replace(/^data: /, ''))
    .filter((e) => e.startsWith('{'))
    .map((e) => JSON.parse(e))
    .find((e) => e.usage);
  served.prompt += usageEvent.usage.prompt_tokens;
  served.completion += usageEvent.usage.completion_tokens;

  const listed = (await (await s.ctx.get('/api/org/api-keys')).json()).data as {
    id: string;
    requests_24h: number;
    last_used_at: string | null;
    key?: string;
  }[];
  const mine = listed.find((k) => k.id === id)!;
  expect(mine).toMatchObject({ requests_24h: 4, name: 'curl', rpm: 500, revoked_at: null });
  expect(mine.last_used_at).not.toBeNull();
  expect(JSON.stringify(listed)).not.toContain(key);

  const series = await (await s.ctx.get(`/api/org/usage?bucket=hour&group_by=key&api_key_id=${id}`)).json();
  const total = (f: string) => series.data.reduce((n: number, p: Record<string, number>) => n + p[f]!, 0);
  expect(total('requests')).toBe(4);
  expect(total('errors')).toBe(0);
  // Exactly the tokens the chat API reported in its replies.
  expect(total('prompt_tokens')).toBe(served.prompt);
  expect(total('completion_tokens')).toBe(served.completion);
  expect(
    series.data.some(
      (p: { latency_p50_ms: number | null; ttft_p50_ms: number | null }) => p.latency_p50_ms !== null && p.ttft_p50_ms !== null,
    ),
  ).toBe(true);
  const byModel = await (await s.ctx.get('/api/org/usage?bucket=day&group_by=model')).json();
  expect(byModel.data.find((p: { group: string }) => p.group === 'triad-guide').requests).toBe(4);

  expect((await send(s, 'DELETE', `/api/org/api-keys/${id}`)).status()).toBe(200);
  const refused = await chat();
  expect(refused.status()).toBe(401);
  expect((await refused.json()).error.code).toBe('invalid_api_key');
  expect((await send(s, 'DELETE', `/api/org/api-keys/${id}`)).status()).toBe(404);
  await s.close();
});

test('the playground chats with the session, on a key of the organization that is listed and revocable', async ({ baseURL, org }) => {
  const s = await signIn(baseURL!, org.token);
  const ask = () => send(s, 'POST', '/api/v1/chat/completions', { model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }] });
  expect((await ask()).status()).toBe(200);
  expect((await ask()).status()).toBe(200);
  const keys = (await (await s.ctx.get('/api/org/api-keys')).json()).data as { id: string; name: string; requests_24h: number }[];
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatchObject({ name: 'Console playground', requests_24h: 2 });
  expect((await send(s, 'DELETE', `/api/org/api-keys/${keys[0]!.id}`)).status()).toBe(200);
  // Revoked: the next message gets a new playground key.
  expect((await ask()).status()).toBe(200);
  const after = (await (await s.ctx.get('/api/org/api-keys')).json()).data as { id: string; revoked_at: string | null }[];
  expect(after.filter((k) => k.revoked_at === null)).toHaveLength(1);
  expect(after.find((k) => k.revoked_at === null)!.id).not.toBe(keys[0]!.id);
  await s.close();
});

test('partners: created and rotated in the console (the old secret stops at once), statistics by partner id, nodes renamed', async ({
  baseURL,
  org,
  request,
}) => {
  const s = await signIn(baseURL!, org.token);
  const made = (await (await send(s, 'POST', '/api/org/partners', { name: 'Fleet' })).json()).data;
  rememberSecrets([made.secret]);
  const bearer = { authorization: `Bearer ${org.token}`, cookie: '' };
  const reg = await request.post('/api/v1/node/register', { headers: bearer, data: { id: 'n-1', secret: made.secret, name: 'First' } });
  expect(reg.status()).toBe(200);
  // The session names the partner by id, no secret; a node registered that way too.
  expect((await send(s, 'POST', '/api/v1/node/register', { id: 'n-2', partner: made.id })).status()).toBe(200);
  const nodes = await s.ctx.get(`/api/v1/partner/nodes?partner=${made.id}`);
  expect(nodes.status()).toBe(200);
  expect((await nodes.json()).data.entries.map((n: { external_id: string }) => n.external_id).sort()).toEqual(['n-1', 'n-2']);
  // …but a bearer call still needs the secret.
  expect((await request.get(`/api/v1/partner/nodes?partner=${made.id}`, { headers: bearer })).status()).toBe(400);

  const renamed = await send(s, 'PATCH', `/api/org/partners/${made.id}/nodes/n-1`, { name: 'Renamed' });
  expect(renamed.status()).toBe(200);
  const one = await (await s.ctx.get(`/api/v1/partner/nodes?partner=${made.id}&partner_node_id=n-1`)).json();
  expect(one.data.entries[0].public_name).toBe('Renamed');

  const rotated = (await (await send(s, 'POST', `/api/org/partners/${made.id}/rotate-secret`)).json()).data;
  rememberSecrets([rotated.secret]);
  expect(rotated.secret).not.toBe(made.secret);
  const old = await request.get(`/api/v1/partner/summary?secret=${made.secret}`, { headers: bearer });
  expect(old.status()).toBe(401);
  const fresh = await request.get(`/api/v1/partner/summary?secret=${rotated.secret}`, { headers: bearer });
  expect(fresh.status()).toBe(200);
  const listed = (await (await s.ctx.get('/api/org/partners')).json()).data;
  expect(listed).toEqual([expect.objectContaining({ id: made.id, name: 'Fleet', nodes: 2, secret_prefix: rotated.secret_prefix })]);
  await s.close();
});

test('org tokens: created (shown once) and revoked from the console', async ({ baseURL, org }) => {
  const s = await signIn(baseURL!, org.token);
  const made = (await (await send(s, 'POST', '/api/org/tokens', { name: 'ci' })).json()).data;
  rememberSecrets([made.token]);
  const t = await signIn(baseURL!, made.token);
  expect((await t.ctx.get('/api/session')).status()).toBe(200);
  const list = (await (await s.ctx.get('/api/org/tokens')).json()).data;
  expect(list.map((x: { name: string | null }) => x.name)).toContain('ci');
  expect(JSON.stringify(list)).not.toContain(made.token);
  expect((await send(s, 'DELETE', `/api/org/tokens/${made.id}`)).status()).toBe(200);
  // Its session has ended: "who is signed in" answers nobody and removes the cookie.
  const ended = await t.ctx.get('/api/session');
  expect(ended.status()).toBe(200);
  expect(await ended.json()).toEqual({ data: null });
  expect(ended.headers()['set-cookie']).toMatch(/^triad_session=;.*Max-Age=0/);
  expect((await t.ctx.get('/api/org/tokens')).status()).toBe(401);
  await s.close();
  await t.close();
});

test("every console call with an {id} refuses another organization's objects (a matrix from the OpenAPI document)", async ({
  baseURL,
  admin,
}) => {
  const [a, b] = await Promise.all(['A', 'B'].map((n) => admin(['org', 'create', '--name', `matrix ${n}`])));
  const sa = await signIn(baseURL!, a!.org_token!);
  const sb = await signIn(baseURL!, b!.org_token!);
  // B's objects, one of each kind.
  const key = (await (await send(sb, 'POST', '/api/org/api-keys', { name: 'b-key' })).json()).data;
  const token = (await (await send(sb, 'POST', '/api/org/tokens', { name: 'b-token' })).json()).data;
  const partner = (await (await send(sb, 'POST', '/api/org/partners', { name: 'b-partner' })).json()).data;
  rememberSecrets([key.key, token.token, partner.secret]);
  expect((await send(sb, 'POST', '/api/v1/node/register', { id: 'b-node', partner: partner.id })).status()).toBe(200);
  const ids: Record<string, string> = { 'api-keys': key.id, tokens: token.id, partners: partner.id };

  const all = await consoleOperations(sa.ctx);
  const ops = all.filter((op) => op.path.startsWith('/api/org/'));
  const withId = ops.filter((op) => op.path.includes('{id}'));
  expect(withId.length).toBeGreaterThanOrEqual(4);
  const bodies: Record<string, unknown> = { patch: { name: 'taken' }, post: {}, delete: undefined };
  for (const op of withId) {
    const kind = op.path.split('/')[3]!;
    const path = op.path.replace('{id}', ids[kind]!).replace('{node}', 'b-node');
    // A body each operation takes, so that what refuses it is the object's owner, not the body.
    const body = op.method === 'patch' && kind === 'api-keys' ? { models: null } : bodies[op.method];
    const r = await send(sa, op.method.toUpperCase(), path, body);
    expect(r.status(), `${op.method} ${path} as organization A`).toBe(404);
    expect((await r.json()).error.message).toBe('NOT FOUND');
  }
  // Lists hold none of B's objects.
  for (const op of ops.filter((o) => o.method === 'get' && !o.path.includes('{'))) {
    const r = await sa.ctx.get(op.path);
    expect(r.status(), op.path).toBe(200);
    const text = await r.text();
    for (const id of Object.values(ids)) expect(text, `${op.path} as organization A`).not.toContain(id);
  }
  // Statistics and usage naming B's partner or key.
  expect((await sa.ctx.get(`/api/v1/partner/summary?partner=${partner.id}`)).status()).toBe(401);
  expect((await sa.ctx.get(`/api/v1/partner/nodes?partner=${partner.id}`)).status()).toBe(401);
  expect((await (await sa.ctx.get(`/api/org/usage?api_key_id=${key.id}`)).json()).data).toEqual([]);
  // B's objects are untouched.
  expect((await (await sb.ctx.get('/api/org/api-keys')).json()).data[0]).toMatchObject({ id: key.id, revoked_at: null });
  expect((await (await sb.ctx.get('/api/org/partners')).json()).data[0]).toMatchObject({
    id: partner.id,
    secret_prefix: partner.secret_prefix,
  });
  const bNode = await (await sb.ctx.get(`/api/v1/partner/nodes?partner=${partner.id}&partner_node_id=b-node`)).json();
  expect(bNode.data.entries[0].public_name).toBe('b-node');
  // Instance calls need an administrator: an org session gets 403, an org token 401.
  const instanceOps = all.filter((o) => o.path.startsWith('/api/instance/'));
  expect(instanceOps.length).toBeGreaterThanOrEqual(4);
  for (const op of instanceOps) {
    const path = op.path.replace('{id}', b!.org_id!);
    const bySession = await send(sa, op.method.toUpperCase(), path, op.method === 'get' ? undefined : { name: 'x', suspended: true });
    expect(bySession.status(), `${op.method} ${path} with an org session`).toBe(403);
    const byToken = await sa.ctx.fetch(path, {
      method: op.method,
      headers: { authorization: `Bearer ${a!.org_token}`, cookie: '' },
      data: op.method === 'get' ? undefined : { name: 'x', suspended: true },
    });
    expect(byToken.status(), `${op.method} ${path} with an org token`).toBe(401);
  }
  await sa.close();
  await sb.close();
});

test("an administrator lists, creates and suspends organizations: every credential of a suspended one gets 403 in its group's shape", async ({
  baseURL,
  admin,
  org,
  request,
}) => {
  const { admin_token } = await admin(['admin-token', 'create', '--label', 'e2e']);
  expect(admin_token).toMatch(/^adm_/);
  const s = await signIn(baseURL!, admin_token as string);
  expect((await (await s.ctx.get('/api/session')).json()).data).toMatchObject({ role: 'admin', organization: null });
  // An admin session is not an organization's.
  expect((await s.ctx.get('/api/org/api-keys')).status()).toBe(403);

  const made = (await (await send(s, 'POST', '/api/instance/organizations', { name: 'Made by admin' })).json()).data;
  rememberSecrets([made.org_token]);
  const listed = (await (await s.ctx.get('/api/instance/organizations')).json()).data;
  expect(listed.map((o: { id: string }) => o.id)).toEqual(expect.arrayContaining([made.id, org.id]));

  const { api_key } = await admin(['apikey', 'create', '--org', org.id]);
  const orgSession = await signIn(baseURL!, org.token);
  const suspend = (suspended: boolean) => send(s, 'PATCH', `/api/instance/organizations/${org.id}`, { suspended });
  expect((await suspend(true)).status()).toBe(200);

  const bearer = (t: string) => ({ authorization: `Bearer ${t}`, cookie: '' });
  const chat = await request.post('/api/v1/chat/completions', {
    headers: bearer(api_key!),
    data: { model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }] },
  });
  expect(chat.status()).toBe(403);
  expect((await chat.json()).error).toMatchObject({ type: 'permission_error', code: 'forbidden' });
  for (const path of ['/organization/api/v1/aliases', '/api/v1/partner/summary?secret=x', '/api/org/api-keys']) {
    const r = await request.get(path, { headers: bearer(org.token) });
    expect(r.status(), path).toBe(403);
    expect((await r.json()).error).toMatchObject({ message: 'FORBIDDEN', status: 403 });
  }
  expect((await orgSession.ctx.get('/api/org/api-keys')).status()).toBe(403);
  const again = await request.post('/api/session', { data: { token: org.token }, headers: { origin: new URL(baseURL!).origin } });
  expect(again.status()).toBe(403);

  expect((await suspend(false)).status()).toBe(200);
  expect((await request.get('/organization/api/v1/aliases', { headers: bearer(org.token) })).status()).toBe(200);
  expect((await orgSession.ctx.get('/api/org/api-keys')).status()).toBe(200);

  // Revoking the admin token ends its session.
  await admin(['admin-token', 'revoke', '--token', admin_token as string]);
  expect((await s.ctx.get('/api/instance/organizations')).status()).toBe(401);
  await s.close();
  await orgSession.close();
});

test('the audit log records who did what, when and from where, per organization and for the instance, and never a secret', async ({
  baseURL,
  admin,
  org,
}) => {
  const s = await signIn(baseURL!, org.token);
  const key = (await (await send(s, 'POST', '/api/org/api-keys', { name: 'audited' })).json()).data;
  const partner = (await (await send(s, 'POST', '/api/org/partners', { name: 'P' })).json()).data;
  const rotated = (await (await send(s, 'POST', `/api/org/partners/${partner.id}/rotate-secret`)).json()).data;
  await send(s, 'DELETE', `/api/org/api-keys/${key.id}`);
  const secrets = [org.token, key.key, partner.secret, rotated.secret, s.secret, s.csrf];
  rememberSecrets(secrets);

  const entries = (await (await s.ctx.get('/api/org/audit')).json()).data as {
    action: string;
    actor: string;
    object: string;
    address: string;
    at: string;
  }[];
  expect(entries.map((e) => e.action).slice(0, 5)).toEqual([
    'api_key.revoke',
    'partner.rotate_secret',
    'partner.create',
    'api_key.create',
    'session.sign_in',
  ]);
  const session = (await (await s.ctx.get('/api/session')).json()).data;
  for (const e of entries.slice(0, 5)) {
    expect(e.actor).toBe(`session:${session.id}`);
    expect(e.address).toBe('127.0.0.1');
    expect(Math.abs(Date.parse(e.at) - Date.now())).toBeLessThan(60_000);
  }
  expect(entries[0]!.object).toBe(`api_key:${key.id}`);
  // Paging.
  const page = (await (await s.ctx.get(`/api/org/audit?limit=2&before=${(entries[1] as unknown as { id: number }).id}`)).json()).data;
  expect(page.map((e: { action: string }) => e.action)).toEqual(['partner.create', 'api_key.create']);

  const { admin_token } = await admin(['admin-token', 'create']);
  const a = await signIn(baseURL!, admin_token as string);
  const all = await (await a.ctx.get('/api/instance/audit?limit=200')).text();
  expect(all).toContain(`api_key:${key.id}`);
  for (const text of [JSON.stringify(entries), all])
    for (const secret of [...secrets, admin_token as string, a.secret]) expect(text).not.toContain(secret);
  rememberSecrets([admin_token as string, a.secret]);
  await s.close();
  await a.close();
});
