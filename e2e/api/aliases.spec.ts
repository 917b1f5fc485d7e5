import { createHmac, generateKeyPairSync } from 'node:crypto';
import type { APIRequestContext } from '@playwright/test';
import { SignJWT } from 'jose';
import jsonwebtoken from 'jsonwebtoken';
import { expect, test } from '../support/fixtures';

const BASE = '/organization/api/v1';
const SECRET = 'a-jwt-secret-of-at-least-32-bytes!!';
const now = () => Math.floor(Date.now() / 1000);
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

async function create(request: APIRequestContext, token: string, body: Record<string, unknown>) {
  const res = await request.post(`${BASE}/alias/create`, { headers: auth(token), data: body });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data as Record<string, unknown> & { id: string };
}
const retrieve = (request: APIRequestContext, id: string, headers: Record<string, string> = {}, query = '') =>
  request.get(`${BASE}/alias/${id}${query}`, { headers });

const sign = (claims: Record<string, unknown>, secret = SECRET, alg: 'HS256' | 'HS384' | 'HS512' = 'HS256') =>
  new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

test.describe('create', () => {
  test('returns 201 with the alias, without inserted_at, and the org can read it back with inserted_at', async ({ request, org }) => {
    const expired_at = now() + 3600;
    const body = { type: 'live', name: 'Town hall', passcode: '123456', jwt_secret: SECRET, stream_key: 'sk-abc', expired_at };
    const alias = await create(request, org.token, body);
    expect(alias).toEqual({ id: expect.stringMatching(/^[a-z0-9]{10}$/), ...body });
    const res = await retrieve(request, alias.id, auth(org.token));
    expect(res.status()).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({ ...alias, inserted_at: expect.any(Number) });
    expect(Math.abs(data.inserted_at - now())).toBeLessThan(120);
  });

  test('optional fields default to null; unknown fields are ignored and never stored', async ({ request, org }) => {
    const alias = await create(request, org.token, {
      type: 'conference',
      expired_at: now() + 60,
      org_id: 'evil',
      inserted_at: 1,
      id: 'aaaaaaaaaa',
    });
    expect(alias).toEqual({
      id: expect.not.stringMatching(/^aaaaaaaaaa$/),
      type: 'conference',
      name: null,
      passcode: null,
      jwt_secret: null,
      stream_key: null,
      expired_at: expect.any(Number),
    });
  });

  test('refuses bad bodies with 400 NOT_FOUND and a detail, storing nothing', async ({ request, org }) => {
    const before = (await (await request.get(`${BASE}/aliases`, { headers: auth(org.token) })).json()).entries.length;
    const cases: [unknown, RegExp][] = [
      [{ expired_at: now() + 60 }, /type/],
      [{ type: 'webinar', expired_at: now() + 60 }, /type/],
      [{ type: 'live' }, /expired_at/],
      [{ type: 'live', expired_at: now() - 10 }, /expired_at: must be in the future/],
      [{ type: 'live', expired_at: 1.5e9 + 0.5 }, /expired_at/],
      [{ type: 'live', expired_at: '2030-01-01' }, /expired_at/],
      [{ type: 'live', expired_at: now() + 60, jwt_secret: 'short' }, /jwt_secret: must be at least 32 bytes/],
      [{ type: 'live', expired_at: now() + 60, name: 'x'.repeat(201) }, /name/],
      [{ type: 'live', expired_at: now() + 60, passcode: '' }, /passcode/],
      [{ type: 'live', expired_at: now() + 60, passcode: '12345' }, /passcode: must be at least 6 characters/],
      [[1, 2], /expected object/],
      ['not json', /JSON/],
    ];
    for (const [body, detail] of cases) {
      const res = await request.post(`${BASE}/alias/create`, {
        headers: { ...auth(org.token), 'content-type': 'application/json' },
        data: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
      });
      expect(res.status(), JSON.stringify(body)).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ message: 'NOT_FOUND', status: 400 });
      expect(error.detail).toMatch(detail);
    }
    const after = (await (await request.get(`${BASE}/aliases`, { headers: auth(org.token) })).json()).entries.length;
    expect(after).toBe(before);
  });

  test('needs a valid organization token', async ({ request }) => {
    for (const headers of [{}, auth('org_wrong'), { authorization: 'Bearer ' }]) {
      const res = await request.post(`${BASE}/alias/create`, { headers, data: { type: 'live', expired_at: now() + 60 } });
      expect(res.status()).toBe(401);
      expect((await res.json()).error).toMatchObject({ message: 'UNAUTHORIZED', status: 401 });
    }
  });
});

test.describe('list', () => {
  test('pages through the organization aliases newest first, filters by type, with a stable cursor', async ({ request, org }) => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++)
      made.push((await create(request, org.token, { type: i % 2 ? 'conference' : 'live', name: `a${i}`, expired_at: now() + 600 })).id);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const res: import('@playwright/test').APIResponse = await request.get(`${BASE}/aliases?limit=3${after ? `&after=${after}` : ''}`, {
        headers: auth(org.token),
      });
      expect(res.status()).toBe(200);
      const body: { after: string | null; entries: { id: string }[] } = await res.json();
      expect(Object.keys(body).sort()).toEqual(['after', 'entries']);
      seen.push(...body.entries.map((e) => e.id));
      after = body.after;
      pages++;
    } while (after);
    expect(pages).toBe(3);
    expect(seen).toEqual([...made].reverse());

    const live = await (await request.get(`${BASE}/aliases?type=live`, { headers: auth(org.token) })).json();
    expect(live.entries.map((e: { id: string }) => e.id)).toEqual(made.filter((_, i) => i % 2 === 0).reverse());
    expect(live.after).toBeNull();
    expect(live.entries[0]).toMatchObject({ type: 'live', name: 'a6', passcode: null, jwt_secret: null, stream_key: null });
  });

  test('refuses a bad type, limit or cursor with 400, and a missing token with 401', async ({ request, org }) => {
    for (const q of ['type=webinar', 'limit=0', 'limit=501', 'after=garbage', 'type=live&type=conference']) {
      const res = await request.get(`${BASE}/aliases?${q}`, { headers: auth(org.token) });
      expect(res.status(), q).toBe(400);
      expect((await res.json()).error).toMatchObject({ message: 'NOT_FOUND', status: 400 });
    }
    expect((await request.get(`${BASE}/aliases`)).status()).toBe(401);
  });
});

test.describe('retrieve by id', () => {
  test('a public alias (no passcode, no jwt_secret) is readable by anyone, without secrets', async ({ request, org }) => {
    const alias = await create(request, org.token, { type: 'live', name: 'Open', stream_key: 'hidden-key', expired_at: now() + 600 });
    const res = await retrieve(request, alias.id);
    expect(res.status()).toBe(200);
    expect((await res.json()).data).toEqual({ ...alias, stream_key: null, inserted_at: expect.any(Number) });
  });

  test('a passcode alias needs the right passcode; a wrong one looks like an unknown id', async ({ request, org }) => {
    const alias = await create(request, org.token, { type: 'conference', passcode: 's3cret', stream_key: 'k', expired_at: now() + 600 });
    const ok = await retrieve(request, alias.id, {}, '?passcode=s3cret');
    expect(ok.status()).toBe(200);
    expect((await ok.json()).data).toMatchObject({ id: alias.id, passcode: null, jwt_secret: null, stream_key: null });
    const unknown = await (await retrieve(request, 'zzzzzzzzzz')).json();
    for (const query of ['', '?passcode=wrong', '?passcode=S3CRET', '?passcode=']) {
      const res = await retrieve(request, alias.id, {}, query);
      expect(res.status(), query).toBe(400);
      expect(await res.json()).toEqual(unknown);
    }
    expect(unknown).toEqual({ error: { message: 'NOT_FOUND', status: 400 } });
    expect((await retrieve(request, 'not-an-id!')).status()).toBe(400);
  });

  test('a JWT signed with the alias secret gives access; stream_key only with host: true', async ({ request, org }) => {
    const alias = await create(request, org.token, {
      type: 'live',
      jwt_secret: SECRET,
      stream_key: 'the-stream-key',
      expired_at: now() + 600,
    });
    const guest = await sign({ alias: alias.id, user_id: 'u1', host: false, expires_in: 300, iat: now() });
    const res = await retrieve(request, alias.id, auth(guest));
    expect(res.status()).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: alias.id, jwt_secret: null, passcode: null, stream_key: null });
    for (const alg of ['HS256', 'HS384', 'HS512'] as const) {
      const host = await sign({ alias: alias.id, user_id: 'h1', host: true, expires_in: 300, iat: now() }, SECRET, alg);
      const r = await retrieve(request, alias.id, auth(host));
      expect(r.status(), alg).toBe(200);
      expect((await r.json()).data.stream_key).toBe('the-stream-key');
    }
    // With exp instead of expires_in.
    const withExp = await sign({ alias: alias.id, user_id: 'u2', host: false, iat: now(), exp: now() + 120 });
    expect((await retrieve(request, alias.id, auth(withExp))).status()).toBe(200);
  });

  test('tokens made by an independent library (jsonwebtoken) are accepted when valid', async ({ request, org }) => {
    const alias = await create(request, org.token, { type: 'conference', jwt_secret: SECRET, expired_at: now() + 600 });
    const t1 = jsonwebtoken.sign({ alias: alias.id, user_id: 'u', host: false, expires_in: 300 }, SECRET, { algorithm: 'HS256' });
    expect((await retrieve(request, alias.id, auth(t1))).status()).toBe(200);
    const t2 = jsonwebtoken.sign({ alias: alias.id, user_id: 'u', host: true }, SECRET, { algorithm: 'HS512', expiresIn: 60 });
    const r2 = await retrieve(request, alias.id, auth(t2));
    expect(r2.status()).toBe(200);
    const t3 = jsonwebtoken.sign({ alias: alias.id, user_id: 'u', host: false, expires_in: 300 }, 'another-secret-that-is-32-bytes-long!', {
      algorithm: 'HS256',
    });
    expect((await retrieve(request, alias.id, auth(t3))).status()).toBe(401);
  });

  test('the JWT attack set is refused with 401 UNAUTHORIZED', async ({ request, org }) => {
    const alias = await create(request, org.token, { type: 'live', jwt_secret: SECRET, stream_key: 'k', expired_at: now() + 600 });
    const other = await create(request, org.token, {
      type: 'live',
      jwt_secret: 'the-other-alias-secret-32-bytes-long',
      expired_at: now() + 600,
    });
    const good = { alias: alias.id, user_id: 'u', host: true, expires_in: 300, iat: now() };
    const valid = await sign(good);
    const [h, , s] = valid.split('.');
    const { privateKey: rsa } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { privateKey: ec } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const hs256 = (header: object, payload: object, secret = SECRET) => {
      const input = `${b64(header)}.${b64(payload)}`;
      return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
    };
    const attacks: [string, string][] = [
      ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(good)}.`],
      ['alg NONE with a signature', `${b64({ alg: 'NONE' })}.${b64(good)}.${s}`],
      ['RS256', jsonwebtoken.sign(good, rsa.export({ type: 'pkcs8', format: 'pem' }) as string, { algorithm: 'RS256' })],
      ['ES256', jsonwebtoken.sign(good, ec.export({ type: 'pkcs8', format: 'pem' }) as string, { algorithm: 'ES256' })],
      ['signed with another alias secret', await sign(good, 'the-other-alias-secret-32-bytes-long')],
      ['alias claim names another alias', await sign({ ...good, alias: other.id })],
      ['expired by iat + expires_in', await sign({ ...good, iat: now() - 1000, expires_in: 300 })],
      ['expired by exp', await sign({ alias: alias.id, user_id: 'u', host: true, iat: now() - 1000, exp: now() - 500 })],
      ['iat in the future', await sign({ ...good, iat: now() + 3600 })],
      ['no expiry at all', await sign({ alias: alias.id, user_id: 'u', host: true })],
      ['expires_in without iat', await sign({ alias: alias.id, user_id: 'u', host: true, expires_in: 300 })],
      ['lifetime over the cap', await sign({ ...good, expires_in: 10 * 365 * 86400 })],
      ['missing user_id', await sign({ alias: alias.id, host: true, expires_in: 300, iat: now() })],
      ['host not a boolean', await sign({ ...good, host: 'true' })],
      ['missing alias claim', await sign({ user_id: 'u', host: true, expires_in: 300, iat: now() })],
      ['tampered payload', `${h}.${b64({ ...good, user_id: 'admin' })}.${s}`],
      ['hand-made HS256 with wrong key', hs256({ alg: 'HS256' }, good, 'x'.repeat(40))],
      ['garbage signature', `${h}.${b64(good)}.AAAA`],
    ];
    for (const [name, token] of attacks) {
      const res = await retrieve(request, alias.id, auth(token));
      expect(res.status(), name).toBe(401);
      expect((await res.json()).error, name).toMatchObject({ message: 'UNAUTHORIZED', status: 401 });
    }
    // The hand-made signer is right: with the right key it is accepted.
    expect((await retrieve(request, alias.id, auth(hs256({ alg: 'HS256', typ: 'JWT' }, good)))).status()).toBe(200);
  });

  test('a JWT for an unknown alias gets 404 Alias not found', async ({ request }) => {
    const token = await sign({ alias: 'qqqqqqqqqq', user_id: 'u', host: false, expires_in: 60, iat: now() });
    const res = await retrieve(request, 'qqqqqqqqqq', auth(token));
    expect(res.status()).toBe(404);
    expect(await res.json()).toEqual({ error: { message: 'Alias not found', status: 404 } });
  });

  test('an expired alias grants no public, passcode or JWT access, but its owner still sees and extends it', async ({ request, org }) => {
    const soon = now() + 2;
    const pub = await create(request, org.token, { type: 'live', expired_at: soon });
    const pass = await create(request, org.token, { type: 'live', passcode: 'pass-p', expired_at: soon });
    const jwtAlias = await create(request, org.token, { type: 'live', jwt_secret: SECRET, expired_at: soon });
    const token = await sign({ alias: jwtAlias.id, user_id: 'u', host: false, expires_in: 300, iat: now() });
    await new Promise((r) => setTimeout(r, (soon - now() + 1) * 1000));
    expect((await retrieve(request, pub.id)).status()).toBe(400);
    expect((await retrieve(request, pass.id, {}, '?passcode=pass-p')).status()).toBe(400);
    expect((await retrieve(request, jwtAlias.id, auth(token))).status()).toBe(400);
    const owner = await retrieve(request, pub.id, auth(org.token));
    expect(owner.status()).toBe(200);
    const listed = await (await request.get(`${BASE}/aliases`, { headers: auth(org.token) })).json();
    expect(listed.entries.map((e: { id: string }) => e.id)).toContain(pub.id);
    const ext = await request.post(`${BASE}/alias/update/${pub.id}`, {
      headers: auth(org.token),
      data: { type: 'live', expired_at: now() + 600 },
    });
    expect(ext.status()).toBe(200);
    expect((await retrieve(request, pub.id)).status()).toBe(200);
  });
});

test.describe('update', () => {
  test('changes given fields, keeps omitted ones, and null clears', async ({ request, org }) => {
    const alias = await create(request, org.token, {
      type: 'live',
      name: 'n',
      passcode: 'pass-1',
      stream_key: 's1',
      expired_at: now() + 600,
    });
    const res = await request.post(`${BASE}/alias/update/${alias.id}`, {
      headers: auth(org.token),
      data: { type: 'conference', passcode: null, name: 'renamed' },
    });
    expect(res.status()).toBe(200);
    const { data } = await res.json();
    expect(data).toEqual({ ...alias, type: 'conference', name: 'renamed', passcode: null, inserted_at: expect.any(Number) });
    // Passcode cleared and no jwt_secret: the alias is public now.
    expect((await retrieve(request, alias.id)).status()).toBe(200);
  });

  test('needs type, validates like create, and 404s for an unknown alias', async ({ request, org }) => {
    const alias = await create(request, org.token, { type: 'live', expired_at: now() + 600 });
    const noType = await request.post(`${BASE}/alias/update/${alias.id}`, { headers: auth(org.token), data: { name: 'x' } });
    expect(noType.status()).toBe(400);
    const short = await request.post(`${BASE}/alias/update/${alias.id}`, {
      headers: auth(org.token),
      data: { type: 'live', jwt_secret: 'short' },
    });
    expect(short.status()).toBe(400);
    expect((await short.json()).error.detail).toMatch(/jwt_secret/);
    const missing = await request.post(`${BASE}/alias/update/zzzzzzzzzz`, { headers: auth(org.token), data: { type: 'live' } });
    expect(missing.status()).toBe(404);
    expect((await missing.json()).error).toMatchObject({ message: 'NOT FOUND', status: 404 });
  });
});

test.describe('delete', () => {
  test('removes the alias for good: 200 with a message, then 404', async ({ request, org }) => {
    const alias = await create(request, org.token, { type: 'live', expired_at: now() + 600 });
    const res = await request.delete(`${BASE}/alias/delete/${alias.id}`, { headers: auth(org.token) });
    expect(res.status()).toBe(200);
    expect(await res.json()).toEqual({ message: 'Alias deleted successfully.' });
    expect((await retrieve(request, alias.id, auth(org.token))).status()).toBe(400);
    const again = await request.delete(`${BASE}/alias/delete/${alias.id}`, { headers: auth(org.token) });
    expect(again.status()).toBe(404);
    expect(await again.json()).toEqual({ error: { message: 'NOT FOUND', status: 404, detail: expect.any(String) } });
    expect((await request.delete(`${BASE}/alias/delete/${alias.id}`)).status()).toBe(401);
  });
});

test('NUL characters are refused as bad input, never reach the database', async ({ request, org }) => {
  const del = await request.delete(`${BASE}/alias/delete/%00`, { headers: auth(org.token) });
  expect(del.status()).toBe(404);
  const upd = await request.post(`${BASE}/alias/update/%00abcdefghi`, { headers: auth(org.token), data: { type: 'live' } });
  expect(upd.status()).toBe(404);
  const created = await request.post(`${BASE}/alias/create`, {
    headers: auth(org.token),
    data: { type: 'live', name: 'a\u0000b', expired_at: now() + 60 },
  });
  expect(created.status()).toBe(400);
  expect((await created.json()).error).toMatchObject({ message: 'NOT_FOUND', status: 400, detail: expect.stringContaining('NUL') });
  const listed = await request.get(`${BASE}/aliases?q=%00`, { headers: auth(org.token) });
  expect(listed.status()).toBe(400);
  const deep = await request.post(`${BASE}/alias/create`, {
    headers: { ...auth(org.token), 'content-type': 'application/json' },
    data: Buffer.from('['.repeat(200_000) + ']'.repeat(200_000)),
  });
  expect(deep.status()).toBe(400);
});

test('BOLA: another organization cannot list, read, update or delete an alias', async ({ request, org, admin }) => {
  const b = await admin(['org', 'create', '--name', 'Org B']);
  const alias = await create(request, org.token, {
    type: 'live',
    passcode: 'pass-c',
    jwt_secret: SECRET,
    stream_key: 'sk',
    expired_at: now() + 600,
  });
  const other = auth(b.org_token!);
  const list = await (await request.get(`${BASE}/aliases`, { headers: other })).json();
  expect(list.entries.map((e: { id: string }) => e.id)).not.toContain(alias.id);
  const read = await retrieve(request, alias.id, other);
  expect(read.status()).toBe(400);
  expect(JSON.stringify(await read.json())).not.toContain('pc');
  const upd = await request.post(`${BASE}/alias/update/${alias.id}`, { headers: other, data: { type: 'conference', passcode: null } });
  expect(upd.status()).toBe(404);
  const del = await request.delete(`${BASE}/alias/delete/${alias.id}`, { headers: other });
  expect(del.status()).toBe(404);
  // Untouched for its owner.
  const mine = await (await retrieve(request, alias.id, auth(org.token))).json();
  expect(mine.data).toMatchObject({ type: 'live', passcode: 'pass-c', jwt_secret: SECRET, stream_key: 'sk' });
});

test('the alias API rate limit answers 429 with Retry-After past the per-token rate', async ({ request, org }) => {
  const results = await Promise.all(Array.from({ length: 90 }, () => request.get(`${BASE}/aliases`, { headers: auth(org.token) })));
  const statuses = results.map((r) => r.status());
  const limited = results.filter((r) => r.status() === 429);
  expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
  expect(limited.length).toBeGreaterThanOrEqual(1);
  const first = limited[0]!;
  expect(Number(first.headers()['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(first.headers()['x-ratelimit-limit']).toBe('60');
  expect(first.headers()['x-ratelimit-remaining']).toBe('0');
  expect((await first.json()).error).toMatchObject({ message: 'TOO_MANY_REQUESTS', status: 429 });
  const ok = results.find((r) => r.status() === 200)!;
  expect(ok.headers()['x-ratelimit-limit']).toBe('60');
});
