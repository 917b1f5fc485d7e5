import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { SignJWT } from 'jose';
import { runAdmin } from '../support/fixtures';
import { freshDataDir, removeDataDirs, startServer } from '../support/server';

test.afterAll(removeDataDirs);

test('logs carry request ids and no secret; metrics count requests, streams and rate limits; SIGTERM finishes open streams', async () => {
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, { TRIAD_LOG_LEVEL: 'debug', TRIAD_GUIDE_DELAY_MS: '15' });
  const env = { TRIAD_DATA_DIR: dataDir };
  const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Ops']);
  const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000']);
  const { api_key: tight } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1']);
  const { partner_id, partner_secret } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', 'P']);
  await runAdmin(env, ['node', 'register', '--partner', partner_id!, '--external-id', 'n1']);
  const adminSecret = fs.readFileSync(path.join(dataDir, 'admin.secret'), 'utf8').trim();
  const jwtSecret = 'operability-jwt-secret-of-32-bytes!!';
  const passcode = 'pass-Zq81x';
  const url = server.url;
  const j = (res: Response) => res.json() as Promise<{ data: { id: string } }>;

  const created = await j(
    await fetch(`${url}/organization/api/v1/alias/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'live',
        passcode,
        jwt_secret: jwtSecret,
        stream_key: 'sk-ops-123',
        expired_at: Math.floor(Date.now() / 1000) + 600,
      }),
    }),
  );
  const aliasId = created.data.id as string;
  const jwt = await new SignJWT({ alias: aliasId, user_id: 'u', host: true, expires_in: 60 })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .sign(new TextEncoder().encode(jwtSecret));
  expect((await fetch(`${url}/organization/api/v1/alias/${aliasId}?passcode=${passcode}`)).status).toBe(200);
  expect((await fetch(`${url}/organization/api/v1/alias/${aliasId}`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(200);
  expect(
    (await fetch(`${url}/api/v1/partner/nodes?secret=${partner_secret}`, { headers: { authorization: `Bearer ${org_token}` } })).status,
  ).toBe(200);
  const chat = (key: string, body: object) =>
    fetch(`${url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3, ...body }),
    });
  expect((await chat(api_key!, {})).status).toBe(200);
  expect((await chat(tight!, {})).status).toBe(200);
  expect((await chat(tight!, {})).status).toBe(429);

  // Request ids: the caller's when it sends a sane one, else a new one; always sent back.
  const echoed = await fetch(`${url}/api/health`, { headers: { 'x-request-id': 'trace-abc-123' } });
  expect(echoed.headers.get('x-request-id')).toBe('trace-abc-123');
  const fresh = await fetch(`${url}/api/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
  expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

  // Metrics, in Prometheus' text format.
  const metrics = await (await fetch(`${url}/api/metrics`)).text();
  expect(metrics).toMatch(/^triad_http_requests_total\{route="\/organization\/api\/v1\/alias\/:id",method="GET",status="200"\} 2$/m);
  expect(metrics).toMatch(/^triad_http_requests_total\{route="\/api\/v1\/chat\/completions",method="POST",status="429"\} 1$/m);
  expect(metrics).toMatch(/^triad_http_request_duration_seconds_count\{route="\/api\/health"\} \d+$/m);
  expect(metrics).toMatch(/^triad_rate_limit_rejections_total\{limiter="chat"\} 1$/m);
  expect(metrics).toMatch(/^triad_chat_open_streams 0$/m);
  expect(metrics).not.toContain(aliasId);

  // A stream is open when SIGTERM comes: it is finished, new connections are refused, exit 0.
  const res = await chat(api_key!, {
    stream: true,
    max_tokens: undefined,
    messages: [{ role: 'user', content: 'Tell me about the configuration of rate limits and aliases' }],
  });
  const reader = res.body!.getReader();
  let text = new TextDecoder().decode((await reader.read()).value);
  const gauge = await (await fetch(`${url}/api/metrics`)).text();
  expect(gauge).toMatch(/^triad_chat_open_streams 1$/m);
  server.proc.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  expect(text).toContain('"finish_reason":"stop"');
  expect(await server.exited).toBe(0);

  // The whole run's logs: structured, with request ids, and not one secret.
  const lines = server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'));
  const access = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
  expect(access.length).toBeGreaterThan(8);
  expect(access.find((l) => l.reqId === 'trace-abc-123')).toMatchObject({ method: 'GET', path: '/api/health', status: 200 });
  const output = server.output();
  for (const secret of [org_token!, api_key!, tight!, partner_secret!, passcode, jwtSecret, jwt, adminSecret, 'sk-ops-123']) {
    expect(output.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the logs`).toBe(false);
  }
});

test('an error no code caught is logged, and the server goes on serving (as Next does once loaded, the dashboard never opened here)', async () => {
  const dataDir = freshDataDir();
  await (await startServer(dataDir, { TRIAD_DEMO: '0' })).stop();
  // A rejection and an exception that nothing catches, thrown inside the server's process once it has started.
  const fault = `setTimeout(() => { Promise.reject(new Error('fault-rejection')); setTimeout(() => { throw new Error('fault-exception'); }); }, 3000);`;
  const server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(fault)}`,
  });
  try {
    // Both log lines awaited, each by its message (the rejection's stack names the injected module, whose
    // data: URL holds the text 'fault-exception' too: waiting for that text alone raced the exception's line).
    const logged = (msg: string, text: string) =>
      server
        .output()
        .split('\n')
        .some((l) => l.includes(`"msg":"${msg}"`) && l.includes(text));
    await expect.poll(() => logged('uncaught exception', 'fault-exception'), { timeout: 15_000 }).toBe(true);
    expect(logged('unhandled rejection', 'fault-rejection')).toBe(true);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    expect(server.proc.exitCode).toBeNull();
    expect(server.output()).not.toContain('"msg":"app loaded"');
  } finally {
    await server.stop();
  }
});
