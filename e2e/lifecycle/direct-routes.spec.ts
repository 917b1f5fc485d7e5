import http from 'node:http';
import { expect, test } from '@playwright/test';
import { UPSTREAM_URL } from '../../scripts/lib/test-env.mjs';
import { runAdmin } from '../support/fixtures';
import { freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * `npm start` serves POST /api/v1/chat/completions straight through its route's Node door (lib/server/direct-routes.ts);
 * TRIAD_DIRECT_ROUTES=0 sends it through Next's router like every other request. A client must not be
 * able to tell which: the same requests to both servers get the same status, headers and body.
 * (The whole API suite runs on the direct path against the PGlite server, and through Next's router
 * against the PostgreSQL one.)
 */
test.describe.configure({ mode: 'serial' });

const MAX_BODY = 200_000;
const servers: RunningServer[] = [];
let keys: string[] = [];
let orgTokens: string[] = [];
const [direct, viaNext] = [() => servers[0]!, () => servers[1]!];
test.beforeAll(async () => {
  test.setTimeout(120_000);
  const env = {
    TRIAD_UPSTREAM_URL: UPSTREAM_URL,
    TRIAD_DEMO: '0',
    TRIAD_GUIDE_DELAY_MS: '0',
    TRIAD_MAX_BODY_BYTES: String(MAX_BODY),
    TRIAD_MAX_CHAT_BODY_BYTES: String(MAX_BODY),
  };
  servers.push(await startServer(freshDataDir(), env));
  servers.push(await startServer(freshDataDir(), { ...env, TRIAD_DIRECT_ROUTES: '0' }));
  const made = await Promise.all(
    servers.map(async (s) => {
      const { org_id, org_token } = await runAdmin({ TRIAD_DATA_DIR: s.dataDir }, ['org', 'create', '--name', 'Parity']);
      const key = (await runAdmin({ TRIAD_DATA_DIR: s.dataDir }, ['apikey', 'create', '--org', org_id!, '--rpm', '1000'])).api_key!;
      return { key, orgToken: org_token! };
    }),
  );
  keys = made.map((m) => m.key);
  orgTokens = made.map((m) => m.orgToken);
});
test.afterAll(async () => {
  for (const s of servers.splice(0)) await s.stop();
  removeDataDirs();
});

type Reply = { status: number; headers: Record<string, string>; body: string };

/**
 * A raw HTTP exchange, so that headers arrive exactly as sent; `chunked` sends the body without a length;
 * `agent` and `timeoutMs`, when given: the connection's agent, and how long the answer may take. `reused`:
 * whether it went on a kept-alive connection.
 */
function exchange(
  url: string,
  init: { headers?: Record<string, string>; body?: string; chunked?: boolean; agent?: http.Agent; timeoutMs?: number },
): Promise<Reply & { reused: boolean }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
    if (init.body !== undefined && !init.chunked) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = http.request(url, { method: 'POST', headers, agent: init.agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body, reused: req.reusedSocket }),
      );
    });
    if (init.timeoutMs) req.setTimeout(init.timeoutMs, () => req.destroy(new Error(`no answer in ${init.timeoutMs} ms`)));
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
  // Each server says which routes it serves directly.
  expect(direct().output()).toContain('"directRoutes":["/api/**","/organization/api/**"]');
  expect(viaNext().output()).toContain('"directRoutes":[]');

  const user = (text: string) => [{ role: 'user', content: text }];
  const tooLarge = JSON.stringify({ model: 'triad-guide', messages: user('x'.repeat(MAX_BODY + 1000)) });
  const cases: { name: string; path?: string; auth?: boolean; body?: string; chunked?: boolean }[] = [
    {
      name: 'guide, whole reply',
      body: JSON.stringify({ model: 'triad-guide', messages: user('How do aliases expire?'), max_tokens: 12 }),
    },
    {
      name: 'guide, streamed with usage',
      body: JSON.stringify({
        model: 'triad-guide',
        messages: user('What is Triad?'),
        stream: true,
        stream_options: { include_usage: true },
      }),
    },
    { name: 'upstream, whole reply', body: JSON.stringify({ model: 'fake-echo', messages: user('hello there') }) },
    { name: 'upstream, streamed', body: JSON.stringify({ model: 'fake-echo', messages: user('hello there'), stream: true }) },
    {
      name: 'upstream answering at once, streamed',
      body: JSON.stringify({ model: 'fake-instant', messages: user('x'), stream: true, stream_options: { include_usage: true } }),
    },
    { name: 'upstream failing mid-stream', body: JSON.stringify({ model: 'fake-midstream-fail', messages: user('x'), stream: true }) },
    { name: 'with a query string', path: '?trace=1', body: JSON.stringify({ model: 'triad-guide', messages: user('hi'), max_tokens: 3 }) },
    { name: 'no API key', auth: false, body: JSON.stringify({ model: 'triad-guide', messages: user('hi') }) },
    { name: 'invalid field', body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'robot', content: 'hi' }] }) },
    { name: 'malformed JSON', body: '{"model":' },
    { name: 'empty body', body: '' },
    { name: 'unknown model', body: JSON.stringify({ model: 'no-such-model', messages: user('hi') }) },
    { name: 'too large, with a length', body: tooLarge },
    { name: 'too large, chunked', chunked: true, body: tooLarge },
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
  const statuses = await Promise.all(
    cases.map((c) =>
      exchange(`${direct().url}/api/v1/chat/completions${c.path ?? ''}`, {
        headers: c.auth === false ? {} : { authorization: `Bearer ${keys[0]}` },
        body: c.body,
        chunked: c.chunked,
      }).then((r) => r.status),
    ),
  );
  expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 401, 400, 400, 400, 404, 413, 413]);
});

test('a body the route answered without reading does not hold up the next request on its kept-alive connection', async () => {
  // One connection per server, kept alive: the 413 (a declared length past the limit) and the 401 (a key
  // refused before the body is read) leave their bodies unread; the next request on the same socket must
  // be read and answered at once, on both paths (through Next it stalled until the request timeout on Node 26).
  const big = JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'x'.repeat(MAX_BODY + 1000) }] });
  const small = JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'x'.repeat(50_000) }], max_tokens: 3 });
  for (const [i, server] of servers.entries()) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = async (auth: string, body: string, chunked = false) => {
      const headers = { authorization: `Bearer ${auth}` };
      const { status, reused } = await exchange(`${server.url}/api/v1/chat/completions`, {
        headers,
        body,
        chunked,
        agent,
        timeoutMs: 5000,
      });
      return { status, reused };
    };
    try {
      expect(await send(keys[i]!, big)).toEqual({ status: 413, reused: false });
      expect(await send(keys[i]!, big, true)).toEqual({ status: 413, reused: true });
      expect(await send('sk_live_not-a-key', small)).toEqual({ status: 401, reused: true });
      expect(await send(keys[i]!, small)).toEqual({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  }
});

/** A raw HTTP exchange of any method; `body` as JSON text. */
function call(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('every other route of the API answers alike through its Node door and through Next', async () => {
  // The server serves the API's routes past Next (lib/server/direct-routes.ts): path parameters, query
  // strings, bodies, each group's errors and auth, as Next's router would give them to the same route.
  const cases: { method: string; path: string; auth?: 'key' | 'org'; body?: string; status: number }[] = [
    { method: 'GET', path: '/api/v1/models', auth: 'key', status: 200 },
    { method: 'GET', path: '/api/v1/models/fake-echo', auth: 'key', status: 200 },
    { method: 'GET', path: '/api/v1/models/no%20such%2Fmodel', auth: 'key', status: 404 },
    { method: 'GET', path: '/api/v1/key', auth: 'key', status: 200 },
    { method: 'GET', path: '/api/v1/models', status: 401 },
    { method: 'POST', path: '/api/v1/embeddings', auth: 'key', body: '{"model":1}', status: 400 },
    { method: 'POST', path: '/api/v1/messages', auth: 'key', body: '{"model":', status: 400 },
    { method: 'GET', path: '/organization/api/v1/aliases?page=1', auth: 'org', status: 200 },
    { method: 'GET', path: '/organization/api/v1/alias/no-such-alias', auth: 'org', status: 400 },
    { method: 'POST', path: '/organization/api/v1/alias/create', auth: 'org', body: '{"type":"nope"}', status: 400 },
    { method: 'POST', path: '/organization/api/v1/alias/update/no-such-alias', auth: 'org', body: '{"name":"x"}', status: 400 },
    { method: 'DELETE', path: '/organization/api/v1/alias/delete/no-such-alias', auth: 'org', status: 404 },
    { method: 'GET', path: '/api/v1/partner/nodes', auth: 'org', status: 400 },
    { method: 'GET', path: '/api/v1/uptime?partner_node_id=n1&secret=wrong', auth: 'org', status: 401 },
    { method: 'GET', path: '/api/health', status: 200 },
    { method: 'GET', path: '/api/openapi.json', status: 200 },
    // HEAD by the GET's door (no body), OPTIONS from the route's methods: as Next's router answers them.
    { method: 'HEAD', path: '/api/health', status: 200 },
    { method: 'HEAD', path: '/organization/api/v1/aliases?page=1', auth: 'org', status: 200 },
    { method: 'HEAD', path: '/api/v1/models', status: 401 },
    { method: 'OPTIONS', path: '/api/v1/uptime', status: 204 },
    { method: 'OPTIONS', path: '/api/v1/chat/completions', status: 204 },
    { method: 'OPTIONS', path: '/api/v1/responses/resp_x', status: 204 },
  ];
  const replies = await Promise.all(
    servers.map(async (s, i) => {
      const out: Reply[] = [];
      for (const c of cases) {
        const auth = c.auth === 'key' ? keys[i] : c.auth === 'org' ? orgTokens[i] : undefined;
        const r = await call(`${s.url}${c.path}`, c.method, auth ? { authorization: `Bearer ${auth}` } : {}, c.body);
        // What differs by server: its address (the API reference's `servers`: the Host the client asked,
        // or through Next its own host name), the database's latency, the key's label (its prefix).
        const body = r.body
          .replaceAll(s.url, 'URL')
          .replaceAll(s.url.replace('127.0.0.1', 'localhost'), 'URL')
          .replace(/"latency_ms":[\d.]+/, '"latency_ms":0')
          .replace(/"label":"sk_live_[\w-]+"/, '"label":"KEY"');
        out.push({ ...r, body });
      }
      return out;
    }),
  );
  cases.forEach((c, n) => {
    const [a, b] = [replies[0]![n]!, replies[1]![n]!];
    expect(a.status, `${c.method} ${c.path}`).toBe(c.status);
    expect(sameShape(a), `${c.method} ${c.path}`).toEqual(sameShape(b));
    // Next's router says so in its `Vary` (its page cache's keys); the server's own dispatch sends none.
    expect(a.headers.vary, `${c.method} ${c.path} served past Next`).toBeUndefined();
    expect(b.headers.vary, `${c.method} ${c.path} through Next`).toContain('rsc');
  });
  // None of it needed Next: the server loads it at the first page (or /api/ping, the framework's floor).
  const loadedNext = (s: RunningServer) =>
    s
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"app loaded"')).length;
  expect(loadedNext(direct())).toBe(0);
  const pages = await Promise.all([fetch(`${direct().url}/`), fetch(`${direct().url}/stats`), fetch(`${direct().url}/api/ping`)]);
  expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
  expect(await pages[0]!.text()).toContain('</html>');
  expect(loadedNext(direct())).toBe(1);
});

/*
 * Streams as clients really take them: longer than 10 s, ended at once, read slowly, and given up
 * half-way. A stream the server wrongly takes for abandoned ("client gone") shows three ways here:
 * the body lacks `data: [DONE]`, the server's request log line says `"aborted":true`, and the fake
 * upstream logs the request as aborted instead of completed. Each is checked, on both paths.
 */
const upstreamLog = async () =>
  (await (await fetch(`${UPSTREAM_URL.replace(/\/v1$/, '')}/__log`)).json()) as { aborted: string[]; completed: string[] };
/** The server's log line of one request, found by the request id the client sent. */
const logLine = (s: RunningServer, reqId: string) =>
  s
    .output()
    .split('\n')
    .find((l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"'));
const chatBody = (model: string, text: string) => JSON.stringify({ model, messages: [{ role: 'user', content: text }], stream: true });

/** A streamed request over a raw socket; `read` decides how the client takes the body. */
function streamRequest(
  s: RunningServer,
  key: string,
  body: string,
  reqId: string,
  read: (res: http.IncomingMessage) => Promise<string>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${s.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': reqId },
    });
    req.on('response', (res) => read(res).then(resolve, reject));
    req.on('error', reject);
    req.end(body);
  });
}
const readAll = (res: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => (text += c));
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });
/** Takes nothing for `pauseMs` (the server must hold back, not give up), then reads a little at a time. */
const readSlowly = (pauseMs: number) => async (res: http.IncomingMessage) => {
  res.pause();
  await new Promise((r) => setTimeout(r, pauseMs));
  let text = '';
  res.setEncoding('utf8');
  for await (const c of res) {
    text += c;
    await new Promise((r) => setTimeout(r, 1));
  }
  return text;
};
const wholeStream = (text: string) => {
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((b) => b.startsWith('data: {'))
    .map((b) => JSON.parse(b.slice(6)) as { choices: { delta: { content?: string } }[] })
    .map((c) => c.choices[0]?.delta.content ?? '')
    .join('');
};

test('streams that last, end at once, meet a slow reader, or lose their client: alike on both paths', async () => {
  test.setTimeout(90_000);
  const run = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
  const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(' '); // ≈ 3.5 MB of events: more than socket buffers hold
  await Promise.all(
    servers.map(async (s, i) => {
      const id = (what: string) => `${what}-${i}-${run}`;
      const [long, instant, slow] = await Promise.all([
        // fake-slow: 60 words, one every 200 ms (12 s)
        streamRequest(s, keys[i]!, chatBody('fake-slow', id('long')), id('long'), readAll),
        streamRequest(s, keys[i]!, chatBody('fake-instant', id('instant')), id('instant'), readAll),
        streamRequest(s, keys[i]!, chatBody('fake-echo', words), id('slow'), readSlowly(6_000)),
      ]);
      expect(wholeStream(long)).toBe(Array.from({ length: 60 }, (_, w) => `w${w} `).join(''));
      expect(wholeStream(instant)).toBe('ok');
      expect(wholeStream(slow)).toBe(`Echo: ${words}`);
      for (const what of ['long', 'instant', 'slow']) {
        // The line is written when the server sees the exchange closed, a moment after the client read the end.
        await expect.poll(() => logLine(s, id(what)) ?? '', { timeout: 5_000 }).toContain('"status":200');
        expect(logLine(s, id(what)), `${s.url} ${what}`).not.toContain('"aborted"');
      }
      // A client that really goes away, two words into a 12 s stream: the upstream request is aborted.
      await streamRequest(s, keys[i]!, chatBody('fake-slow', id('gone')), id('gone'), async (res) => {
        let text = '';
        for await (const c of res) {
          text += c;
          if (text.includes('w1 ')) break; // leaving the loop destroys the response: the connection closes
        }
        return text;
      });
      await expect.poll(async () => (await upstreamLog()).aborted, { timeout: 5_000 }).toContain(id('gone'));
      await expect.poll(() => logLine(s, id('gone')) ?? '', { timeout: 5_000 }).toContain('"aborted":true');
    }),
  );
  const log = await upstreamLog();
  for (const i of [0, 1]) {
    expect(log.completed).toContain(`long-${i}-${run}`);
    expect(log.aborted).not.toContain(`long-${i}-${run}`);
    expect(log.completed).not.toContain(`gone-${i}-${run}`);
  }
});
