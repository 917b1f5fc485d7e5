import http from 'node:http';
import { readAdminSecret } from '@/lib/auth/admin-secret';
import { expect, test } from '../support/fixtures';

/** A request with the Host header given as is (a DNS-rebinding page sends its own name from a browser on this machine). */
function withHost(baseURL: string, method: string, path: string, host: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      `${baseURL}${path}`,
      { method, headers: { ...headers, host, ...(body ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test.describe('health', () => {
  test('reports the database as reachable, with the driver in use', async ({ request, driver }) => {
    const res = await request.get('/api/health');
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'ok', database: { driver, reachable: true }, rate_limits: { store: 'memory' } });
    expect(typeof body.database.latency_ms).toBe('number');
  });

  test('keeps an idle connection 72 s, longer than a proxy in front keeps its own (60 s), and says so', async ({ request }) => {
    const res = await request.get('/api/health');
    expect(res.headers()['connection']).toBe('keep-alive');
    expect(res.headers()['keep-alive']).toBe('timeout=72');
  });
});

test.describe('credentials check', () => {
  const check = (request: import('@playwright/test').APIRequestContext, data: Record<string, string>) =>
    request.post('/api/credentials/check', { data }).then(async (r) => {
      expect(r.status()).toBe(200);
      return (await r.json()).data;
    });

  test('an org token and an API key made by the admin CLI are valid until revoked', async ({ request, admin, org }) => {
    const { api_key } = await admin(['apikey', 'create', '--org', org.id, '--rpm', '30']);
    expect(api_key).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(org.token).toMatch(/^org_[A-Za-z0-9_-]{43}$/);
    expect(await check(request, { org_token: org.token, api_key: api_key! })).toEqual({
      org_token: { valid: true, organization: expect.stringContaining('org for') },
      api_key: { valid: true, organization: expect.stringContaining('org for') },
    });
    await admin(['token', 'revoke', '--token', org.token]);
    await admin(['apikey', 'revoke', '--key', api_key!]);
    expect(await check(request, { org_token: org.token, api_key: api_key! })).toEqual({
      org_token: { valid: false },
      api_key: { valid: false },
    });
  });

  test("a partner secret is valid with its own organization's token only", async ({ request, admin, org }) => {
    const other = await admin(['org', 'create', '--name', 'Other org']);
    const { partner_secret } = await admin(['partner', 'create', '--org', org.id, '--name', 'Mine']);
    expect(partner_secret).toMatch(/^pt_sec_/);
    expect(await check(request, { org_token: org.token, partner_secret: partner_secret! })).toMatchObject({
      partner_secret: { valid: true, partner: 'Mine' },
    });
    expect(await check(request, { org_token: other.org_token!, partner_secret: partner_secret! })).toMatchObject({
      org_token: { valid: true },
      partner_secret: { valid: false },
    });
    expect(await check(request, { partner_secret: partner_secret! })).toEqual({ partner_secret: { valid: false } });
  });

  test('an unknown or malformed credential is simply invalid', async ({ request }) => {
    expect(await check(request, { org_token: 'org_nope', api_key: '' })).toEqual({ org_token: { valid: false } });
    // Every character past ASCII written as an escape (Python's json.dumps does so): a whole surrogate pair passes.
    const escaped = await request.post('/api/credentials/check', {
      data: Buffer.from('{"org_token":"org_\\ud83d\\ude00"}'),
      headers: { 'content-type': 'application/json' },
    });
    expect(await escaped.json()).toEqual({ data: { org_token: { valid: false } } });
  });

  test('bad input gets a 400 in the documented error shape', async ({ request }) => {
    for (const [data, detail] of [
      ['{not json', 'the request body is not valid JSON'],
      ['', 'the request body is empty'],
      ['[1,2]', 'Invalid input: expected object, received array'],
      [JSON.stringify({ org_token: 42 }), 'org_token: Invalid input: expected string, received number'],
      // Text PostgreSQL could not store, wherever it is (a value, a key): refused here, never a 500 later.
      ['{"org_token":"a\\u0000b"}', 'the request body contains a NUL character (\\u0000)'],
      ['{"org_token":"a\\ud800b"}', 'the request body contains half a surrogate pair (a \\ud800–\\udfff escape without its other half)'],
      ['{"x":{"\\uDC00":1}}', 'the request body contains half a surrogate pair (a \\ud800–\\udfff escape without its other half)'],
    ]) {
      const res = await request.post('/api/credentials/check', {
        data: Buffer.from(data!),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status(), data).toBe(400);
      expect(await res.json()).toEqual({ error: { message: 'INVALID_PARAMETERS', status: 400, detail } });
    }
  });

  test('an oversized body is refused with 413 before it is parsed', async ({ request }) => {
    const res = await request.post('/api/credentials/check', {
      data: Buffer.from(JSON.stringify({ org_token: 'x'.repeat(2 * 1024 * 1024) })),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status()).toBe(413);
    expect((await res.json()).error).toMatchObject({ message: 'PAYLOAD_TOO_LARGE', status: 413 });
  });
});

test.describe('admin route', () => {
  test('refuses commands without the local admin secret, and stores nothing', async ({ request }) => {
    for (const authorization of [undefined, 'Bearer wrong', 'Bearer ', 'Basic abc']) {
      const res = await request.post('/api/admin', {
        data: { command: 'org create', name: 'Intruder' },
        headers: authorization ? { authorization } : {},
      });
      expect(res.status()).toBe(401);
      expect((await res.json()).error).toMatchObject({ message: 'UNAUTHORIZED', status: 401 });
    }
  });

  test('node registration is idempotent and checks the partner exists', async ({ admin, org }) => {
    const { partner_id } = await admin(['partner', 'create', '--org', org.id, '--name', 'Nodes']);
    const args = ['node', 'register', '--partner', partner_id!, '--external-id', 'node-a', '--name', 'Node A'];
    expect(await admin(args)).toEqual({ partner_node_id: 'node-a' });
    expect(await admin(args)).toEqual({ partner_node_id: 'node-a' });
    await expect(admin(['node', 'register', '--partner', 'missing', '--external-id', 'x'])).rejects.toThrow(/no partner with id missing/);
  });
});

test.describe('demo', () => {
  test('the demo command is idempotent and prints one JSON object', async ({ admin }) => {
    const first = await admin(['demo']);
    const second = await admin(['demo']);
    expect(second).toEqual(first);
    expect(Object.keys(first).sort()).toEqual(['api_key', 'org_token', 'partner_node_ids', 'partner_secret']);
    expect((first.partner_node_ids as string[]).length).toBeGreaterThan(0);
  });

  test('requests a proxy forwarded do not count as local: no demo credentials, no metrics', async ({ request }) => {
    for (const headers of [
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=203.0.113.9' },
      { 'x-real-ip': '203.0.113.9' },
    ] as Record<string, string>[]) {
      const demo = await request.get('/api/demo/credentials', { headers });
      expect(demo.status()).toBe(404);
      expect((await request.get('/api/metrics', { headers })).status()).toBe(401);
    }
    expect((await request.get('/api/metrics')).status()).toBe(200);
  });

  test('local-only routes refuse a Host that does not name this machine with 403 (DNS rebinding)', async ({ baseURL, adminEnv }) => {
    const port = new URL(baseURL!).port;
    const secret = readAdminSecret(adminEnv.TRIAD_DATA_DIR!)!;
    const adminCall = { authorization: `Bearer ${secret}` };
    const command = JSON.stringify({ command: 'org create', name: 'Rebound' });
    for (const host of ['evil.example', `evil.example:${port}`, `localhost.evil.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
      for (const [method, path, headers, body] of [
        ['GET', '/api/demo/credentials', {}, undefined],
        ['GET', '/api/metrics', {}, undefined],
        ['POST', '/api/admin', adminCall, command], // even with the admin secret
      ] as const) {
        const res = await withHost(baseURL!, method, path, host, headers, body);
        expect(res.status, `${host} ${path}`).toBe(403);
        expect(JSON.parse(res.body)).toEqual({ error: { message: 'FORBIDDEN', status: 403, detail: expect.stringContaining('Host') } });
      }
    }
    // Under this machine's names, the same requests are answered.
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost']) {
      expect((await withHost(baseURL!, 'GET', '/api/demo/credentials', host)).status, host).toBe(200);
      expect((await withHost(baseURL!, 'GET', '/api/metrics', host)).status, host).toBe(200);
    }
    const made = await withHost(baseURL!, 'POST', '/api/admin', `127.0.0.1:${port}`, adminCall, command);
    expect(made.status).toBe(200);
  });

  test('unknown paths share one metrics label: 300 requests with 8 KB paths leave the metrics about the same size', async ({ request }) => {
    const size = async () => (await (await request.get('/api/metrics')).text()).length;
    const before = await size();
    const long = 'x'.repeat(8000);
    for (let i = 0; i < 300; i += 30) {
      await Promise.all(Array.from({ length: 30 }, (_, j) => request.get(`/${j % 2 ? 'api' : 'organization'}/${long}${i + j}`)));
    }
    const text = await (await request.get('/api/metrics')).text();
    expect(text).not.toContain('xxxxxxxxxx');
    expect(text).toMatch(/route="other",method="GET",status="404"/);
    // Other tests run meanwhile and add their routes' label sets: a few kilobytes, not the megabytes of a label per path.
    expect(text.length - before).toBeLessThan(50_000);
    expect(await size()).toBeLessThan(before + 50_000);
  });

  test('demo credentials are offered to this machine and they work', async ({ request, admin }) => {
    const res = await request.get('/api/demo/credentials', { headers: { 'x-triad-peer': '203.0.113.9' } });
    expect(res.status()).toBe(200);
    expect(res.headers()['cache-control']).toBe('no-store');
    const { data } = await res.json();
    expect(data).toEqual(await admin(['demo']));
  });
});
