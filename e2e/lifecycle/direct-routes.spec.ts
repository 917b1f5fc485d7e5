import http from 'node:http';
import { expect, test } from '@playwright/test';
import { UPSTREAM_URL } from '../support/env.mjs';
import { runAdmin } from '../support/fixtures';
import { freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * `npm start` serves POST /api/v1/chat/completions straight from its route handler (scripts/direct-routes.mjs);
 * TRIAD_DIRECT_ROUTES=0 sends it through Next's router like every other request. A client must not be
 * able to tell which: the same requests to both servers get the same status, headers and body.
 * (The whole API suite runs on the direct path against the PGlite server, and through Next's router
 * against the PostgreSQL one.)
 */
test.afterAll(removeDataDirs);

type Reply = { status: number; headers: Record<string, string>; body: string };

/** A raw HTTP exchange, so that headers arrive exactly as sent; `chunked` sends the body without a length. */
function exchange(url: string, init: { headers?: Record<string, string>; body?: string; chunked?: boolean }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
    if (init.body !== undefined && !init.chunked) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body }));
    });
    req.on('error', reject);
    if (init.chunked && init.body) {
      // In pieces, so that the server cannot know the length up front.
      for (let i = 0; i < init.body.length; i += 4096) req.write(init.body.slice(i, i + 4096));
      req.end();
    } else req.end(init.body);
  });
}

// What may differ between two replies: per-request values, and Next's page-cache `Vary`.
const PER_REQUEST = ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'vary'];
const sameShape = (r: Reply) => ({
  status: r.status,
  headers: Object.fromEntries(Object.entries(r.headers).filter(([k]) => !PER_REQUEST.includes(k))),
  body: r.body.replace(/chatcmpl-[A-Za-z0-9_-]+/g, 'chatcmpl-ID').replace(/"created":\d+/g, '"created":0'),
});

test('the chat route answers alike with and without direct dispatch', async () => {
  const env = { TRIAD_UPSTREAM_URL: UPSTREAM_URL, TRIAD_DEMO: '0', TRIAD_GUIDE_DELAY_MS: '0', TRIAD_MAX_BODY_BYTES: '4096' };
  const servers: RunningServer[] = [];
  try {
    const direct = await startServer(freshDataDir(), env);
    servers.push(direct);
    const viaNext = await startServer(freshDataDir(), { ...env, TRIAD_DIRECT_ROUTES: '0' });
    servers.push(viaNext);
    // Each server says which routes it serves directly.
    expect(direct.output()).toContain('"directRoutes":["POST /api/v1/chat/completions"]');
    expect(viaNext.output()).toContain('"directRoutes":[]');

    const keys = await Promise.all(
      servers.map(async (s) => {
        const { org_id } = await runAdmin({ TRIAD_DATA_DIR: s.dataDir }, ['org', 'create', '--name', 'Parity']);
        return (await runAdmin({ TRIAD_DATA_DIR: s.dataDir }, ['apikey', 'create', '--org', org_id!])).api_key!;
      }),
    );
    const user = (text: string) => [{ role: 'user', content: text }];
    const cases: { name: string; path?: string; auth?: boolean; body?: string; chunked?: boolean }[] = [
      { name: 'guide, whole reply', body: JSON.stringify({ model: 'triad-guide', messages: user('How do aliases expire?'), max_tokens: 12 }) },
      { name: 'guide, streamed with usage', body: JSON.stringify({ model: 'triad-guide', messages: user('What is Triad?'), stream: true, stream_options: { include_usage: true } }) },
      { name: 'upstream, whole reply', body: JSON.stringify({ model: 'fake-echo', messages: user('hello there') }) },
      { name: 'upstream, streamed', body: JSON.stringify({ model: 'fake-echo', messages: user('hello there'), stream: true }) },
      { name: 'upstream failing mid-stream', body: JSON.stringify({ model: 'fake-midstream-fail', messages: user('x'), stream: true }) },
      { name: 'with a query string', path: '?trace=1', body: JSON.stringify({ model: 'triad-guide', messages: user('hi'), max_tokens: 3 }) },
      { name: 'no API key', auth: false, body: JSON.stringify({ model: 'triad-guide', messages: user('hi') }) },
      { name: 'invalid field', body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'robot', content: 'hi' }] }) },
      { name: 'malformed JSON', body: '{"model":' },
      { name: 'empty body', body: '' },
      { name: 'unknown model', body: JSON.stringify({ model: 'no-such-model', messages: user('hi') }) },
      { name: 'too large, with a length', body: JSON.stringify({ model: 'triad-guide', messages: user('x'.repeat(5000)) }) },
      { name: 'too large, chunked', chunked: true, body: JSON.stringify({ model: 'triad-guide', messages: user('x'.repeat(5000)) }) },
    ];
    for (const c of cases) {
      const [a, b] = await Promise.all(
        servers.map((s, i) =>
          exchange(`${s.url}/api/v1/chat/completions${c.path ?? ''}`, {
            headers: c.auth === false ? {} : { authorization: `Bearer ${keys[i]}` },
            body: c.body,
            chunked: c.chunked,
          }),
        ),
      );
      expect(sameShape(a!), c.name).toEqual(sameShape(b!));
    }
    // The cases above do reach the handler's own answers (not, say, a blanket error).
    const statuses = await Promise.all(cases.map((c) => exchange(`${direct.url}/api/v1/chat/completions${c.path ?? ''}`, { headers: c.auth === false ? {} : { authorization: `Bearer ${keys[0]}` }, body: c.body, chunked: c.chunked }).then((r) => r.status)));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 401, 400, 400, 400, 404, 413, 413]);
  } finally {
    for (const s of servers) await s.stop();
  }
});
