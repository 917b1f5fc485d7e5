import http from 'node:http';
import { expect, test } from '@playwright/test';
import { SignJWT } from 'jose';
import { runAdmin } from '../support/fixtures';
import { freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * The limits a review found missing, on a server of their own: failed passcode and JWT attempts
 * (default 10 a minute per alias and per client address), request rates per client address and per
 * token, no-store on replies with secrets, HSTS behind an HTTPS proxy, and a client hanging up
 * half-way through its body. TRIAD_TRUST_PROXY lets the test speak as many client addresses.
 */
test.describe.configure({ mode: 'serial' });
let server: RunningServer;
let orgToken: string;
let partnerSecret: string;
test.beforeAll(async () => {
  test.setTimeout(90_000);
  const dataDir = freshDataDir();
  server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_TRUST_PROXY: '1',
    TRIAD_ADDRESS_RATE_PER_S: '5',
    TRIAD_STATS_RATE_PER_S: '5',
    TRIAD_LINK_RATE_PER_S: '20',
  });
  const env = { TRIAD_DATA_DIR: dataDir };
  const org = await runAdmin(env, ['org', 'create', '--name', 'Limits']);
  orgToken = org.org_token!;
  const partner = await runAdmin(env, ['partner', 'create', '--org', org.org_id!, '--name', 'P']);
  partnerSecret = partner.partner_secret!;
});
test.afterAll(async () => {
  await server?.stop();
  removeDataDirs();
});

let addressCounter = 0;
/** A client address of its own (through TRIAD_TRUST_PROXY's X-Forwarded-For), so that per-address rates do not mix tests. */
const freshAddress = () => `198.51.100.${++addressCounter}`;
const from = (address: string, headers: Record<string, string> = {}) => ({ ...headers, 'x-forwarded-for': `203.0.113.250, ${address}` });

async function createAlias(body: object) {
  const res = await fetch(`${server.url}/organization/api/v1/alias/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${orgToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'live', expired_at: Math.floor(Date.now() / 1000) + 600, ...body }),
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return ((await res.json()) as { data: { id: string } }).data.id;
}
const retrieve = (id: string, address: string, query = '', headers: Record<string, string> = {}) =>
  fetch(`${server.url}/organization/api/v1/alias/${id}${query}`, { headers: from(address, headers) });

test('failed passcodes: 10 a minute on one alias, from any addresses; then 429 with Retry-After, for a right passcode too', async () => {
  const id = await createAlias({ passcode: '424242' });
  for (let i = 0; i < 10; i++) expect((await retrieve(id, freshAddress(), `?passcode=${1000 + i}00`)).status).toBe(400);
  for (const passcode of ['999999', '424242']) {
    const res = await retrieve(id, freshAddress(), `?passcode=${passcode}`);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({ error: { message: 'TOO_MANY_REQUESTS', status: 429 } });
  }
  // Its owner still reads it.
  expect((await retrieve(id, freshAddress(), '', { authorization: `Bearer ${orgToken}` })).status).toBe(200);
});

test('failed attempts: 10 a minute from one address, across aliases and JWTs; other addresses go on', async () => {
  const secret = 'limits-jwt-secret-of-at-least-32-bytes';
  const ids = await Promise.all(
    Array.from({ length: 11 }, (_, i) => createAlias(i % 2 || i === 10 ? { passcode: '424242' } : { jwt_secret: secret })),
  );
  const guesser = freshAddress();
  const badJwt = await new SignJWT({ alias: 'x', user_id: 'u', host: false, expires_in: 60 })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .sign(new TextEncoder().encode('a-wrong-secret-of-at-least-32-bytes!!'));
  for (const [i, id] of ids.slice(0, 10).entries()) {
    await new Promise((r) => setTimeout(r, 250)); // under the address's 5 requests a second: only failures count here
    const res =
      i % 2 ? await retrieve(id, guesser, '?passcode=000000') : await retrieve(id, guesser, '', { authorization: `Bearer ${badJwt}` });
    expect(res.status).toBe(i % 2 ? 400 : 401);
  }
  expect((await retrieve(ids[10]!, guesser, '?passcode=424242')).status).toBe(429);
  expect((await retrieve(ids[10]!, freshAddress(), '?passcode=424242')).status).toBe(200);
});

test('passcodes shorter than 6 characters are refused at create and update', async () => {
  for (const passcode of ['1', '12345']) {
    const res = await fetch(`${server.url}/organization/api/v1/alias/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${orgToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'live', passcode, expired_at: Math.floor(Date.now() / 1000) + 600 }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { detail: string } }).error.detail).toMatch(/passcode: must be at least 6 characters/);
  }
  const id = await createAlias({});
  const upd = await fetch(`${server.url}/organization/api/v1/alias/update/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${orgToken}` },
    body: JSON.stringify({ type: 'live', passcode: '1234' }),
  });
  expect(upd.status).toBe(400);
});

/**
 * `n` requests at once, at a limit of `limit` a second: some are answered, the rest refused with 429
 * and its headers. Windows are one second long: should a slow machine spread the burst over two of
 * them, so that none is refused, it is sent again in a fresh window (three tries at most).
 */
async function expectLimited(n: number, limit: number, send: () => Promise<Response>) {
  for (let attempt = 1; ; attempt++) {
    const replies = await Promise.all(Array.from({ length: n }, send));
    const limited = replies.filter((r) => r.status === 429);
    for (const r of replies) expect(r.headers.get('x-ratelimit-limit')).toBe(String(limit));
    for (const r of limited) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(replies.filter((r) => r.status >= 400 && r.status !== 429)).toEqual([]);
    expect(replies.length - limited.length).toBeGreaterThanOrEqual(limit); // a fresh window lets `limit` through
    if (limited.length > 0) return;
    expect(attempt, 'no request refused in three bursts').toBeLessThan(3);
    await new Promise((r) => setTimeout(r, 1100));
  }
}

test('rates: per client address without a token, per token on statistics and ingestion', async () => {
  const address = freshAddress();
  const check = () =>
    fetch(`${server.url}/api/credentials/check`, {
      method: 'POST',
      headers: from(address, { 'content-type': 'application/json' }),
      body: '{}',
    });
  await expectLimited(8, 5, check);
  for (const path of ['/api/health', '/api/openapi.json']) {
    const caller = freshAddress();
    await expectLimited(8, 5, () => fetch(`${server.url}${path}`, { headers: from(caller) }));
  }
  const pub = await createAlias({});
  const reader = freshAddress();
  await expectLimited(8, 5, () => retrieve(pub, reader));
  // One token, whatever the address: statistics and ingestion count together.
  const auth = { authorization: `Bearer ${orgToken}` };
  await new Promise((r) => setTimeout(r, 1100)); // a new one-second window
  await expectLimited(8, 5, () =>
    fetch(`${server.url}/api/v1/partner/nodes?secret=${partnerSecret}`, { headers: from(freshAddress(), auth) }),
  );
  const ingest = await fetch(`${server.url}/api/v1/node/register`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'n1', secret: partnerSecret }),
  });
  expect([200, 429]).toContain(ingest.status);
  expect(ingest.headers.get('x-ratelimit-limit')).toBe('5');
  // The owner's retrieve counts on the token's alias rate (TRIAD_LINK_RATE_PER_S), from any address.
  await new Promise((r) => setTimeout(r, 1100));
  await expectLimited(40, 20, () => retrieve(pub, freshAddress(), '', auth));
});

/**
 * Requests sent one after the other from one address: the first `limit` of a second get `first`,
 * then 429. Should the second end half-way (a slow machine), the run is tried again (three at most).
 */
async function expectRefusedAfter(limit: number, first: number, send: () => Promise<Response>) {
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i <= limit; i++) statuses.push((last = await send()).status);
    if (Date.now() - started < 900 || attempt === 3) {
      expect(statuses).toEqual([...Array<number>(limit).fill(first), 429]);
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      return last!;
    }
    await new Promise((r) => setTimeout(r, 1100));
  }
}

test('unknown API keys and organization tokens: counted per client address, then 429', async () => {
  await new Promise((r) => setTimeout(r, 1100));
  let n = 0;
  const chatCaller = freshAddress();
  const chat = await expectRefusedAfter(5, 401, () =>
    fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: from(chatCaller, { authorization: `Bearer sk-triad-unknown-${++n}`, 'content-type': 'application/json' }),
      body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }] }),
    }),
  );
  expect(await chat.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
  const statsCaller = freshAddress();
  const stats = await expectRefusedAfter(5, 401, () =>
    fetch(`${server.url}/api/v1/partner/nodes?secret=${partnerSecret}`, {
      headers: from(statsCaller, { authorization: `Bearer unknown-org-token-${++n}` }),
    }),
  );
  expect(await stats.json()).toMatchObject({ error: { message: 'TOO_MANY_REQUESTS', status: 429 } });
  // Another address is not held up by them.
  const other = await fetch(`${server.url}/api/v1/partner/nodes?secret=${partnerSecret}`, {
    headers: from(freshAddress(), { authorization: 'Bearer unknown-org-token-x' }),
  });
  expect(other.status).toBe(401);
});

test('alias replies that carry secrets are never stored by a cache', async () => {
  const auth = { authorization: `Bearer ${orgToken}`, 'content-type': 'application/json' };
  await new Promise((r) => setTimeout(r, 1100)); // past the window the test before used up
  const id = await createAlias({ passcode: 'cache-me-not', jwt_secret: 'a-jwt-secret-of-at-least-32-bytes-long' }); // create: checked inside
  const list = await fetch(`${server.url}/organization/api/v1/aliases`, { headers: auth });
  const update = await fetch(`${server.url}/organization/api/v1/alias/update/${id}`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ type: 'conference' }),
  });
  const read = await fetch(`${server.url}/organization/api/v1/alias/${id}`, { headers: auth });
  for (const res of [list, update, read]) {
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('cache-me-not');
    expect(res.headers.get('cache-control')).toBe('no-store');
  }
});

test("HSTS and the API reference's https address only when a trusted proxy says the request came over HTTPS", async () => {
  const https = await fetch(`${server.url}/api/health`, { headers: { 'x-forwarded-proto': 'https' } });
  expect(https.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
  expect((await fetch(`${server.url}/api/health`)).headers.get('strict-transport-security')).toBeNull();
  // The OpenAPI document's server, which the reference's "try it" calls: the address the client used.
  // (node:http, since fetch sets Host itself.)
  const servers = (url: string, headers: Record<string, string>) =>
    new Promise<unknown>((resolve, reject) =>
      http
        .get(`${url}/api/openapi.json`, { headers }, (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve((JSON.parse(text) as { servers: unknown }).servers));
        })
        .on('error', reject),
    );
  const proxied = { 'x-forwarded-proto': 'https', host: 'triad.example.com' };
  expect(await servers(server.url, proxied)).toEqual([{ url: 'https://triad.example.com' }]);
  expect(await servers(server.url, { host: 'triad.example.com:8080' })).toEqual([{ url: 'http://triad.example.com:8080' }]);
  const untrusted = await startServer(freshDataDir(), { TRIAD_DEMO: '0' });
  try {
    expect(
      (await fetch(`${untrusted.url}/api/health`, { headers: { 'x-forwarded-proto': 'https' } })).headers.get('strict-transport-security'),
    ).toBeNull();
    expect(await servers(untrusted.url, proxied)).toEqual([{ url: 'http://triad.example.com' }]);
  } finally {
    await untrusted.stop();
  }
});

test('a client hanging up half-way through its body is no error in the log', async () => {
  for (const path of ['/api/credentials/check', '/api/v1/chat/completions', '/organization/api/v1/alias/create']) {
    await new Promise<void>((resolve) => {
      const req = http.request(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': '5000',
          authorization: `Bearer ${orgToken}`,
          'x-forwarded-for': freshAddress(),
        },
      });
      req.on('error', () => resolve());
      req.write('{"org_token":"');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
  }
  await new Promise((r) => setTimeout(r, 500));
  const errors = server
    .output()
    .split('\n')
    .filter((l) => l.includes('"level":50'));
  expect(errors).toEqual([]);
});
