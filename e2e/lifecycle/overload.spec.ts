import net from 'node:net';
import { expect, test } from '@playwright/test';
import { runAdmin } from '../support/fixtures';
import { freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * Overload protection on a server of its own: chat completions in flight are capped per API key
 * (TRIAD_MAX_CONCURRENT_PER_KEY → 429) and per instance (TRIAD_MAX_CONCURRENT → 503 with Retry-After),
 * a place comes back when a completion ends or its client goes away; a client that is slow to send
 * its headers or its body is let go (408), while a reply that takes longer than that still completes;
 * an idle kept-alive connection is kept TRIAD_KEEP_ALIVE_TIMEOUT_MS, then closed.
 * triad-guide answers a word every 100 ms, so that its streams stay open for a while.
 */
test.describe.configure({ mode: 'serial' });
let server: RunningServer;
let keyA: string;
let keyB: string;
test.beforeAll(async () => {
  test.setTimeout(90_000);
  const dataDir = freshDataDir();
  server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_GUIDE_DELAY_MS: '100',
    TRIAD_MAX_CONCURRENT_PER_KEY: '2',
    TRIAD_MAX_CONCURRENT: '3',
    TRIAD_HEADERS_TIMEOUT_MS: '1000',
    TRIAD_REQUEST_TIMEOUT_MS: '2000',
    TRIAD_KEEP_ALIVE_TIMEOUT_MS: '2500',
  });
  const env = { TRIAD_DATA_DIR: dataDir };
  const { org_id } = await runAdmin(env, ['org', 'create', '--name', 'Overload']);
  keyA = (await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000'])).api_key!;
  keyB = (await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000'])).api_key!;
});
test.afterAll(async () => {
  await server?.stop();
  removeDataDirs();
});

const chat = (key: string, stream: boolean, signal?: AbortSignal) =>
  fetch(`${server.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'triad-guide',
      messages: [{ role: 'user', content: 'How do I run the tests?' }],
      stream,
      max_tokens: 40,
    }),
    signal,
  });

/** A stream that has begun: its status and first bytes are in. */
async function openStream(key: string) {
  const controller = new AbortController();
  const res = await chat(key, true, controller.signal);
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  await reader.read();
  return { controller, reader };
}

async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let text = '';
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

test('completions in flight: 429 past the key’s cap, 503 past the instance’s; places come back', async () => {
  const a1 = await openStream(keyA);
  const a2 = await openStream(keyA);

  const third = await chat(keyA, true);
  expect(third.status).toBe(429);
  expect(third.headers.get('retry-after')).toBe('1');
  expect(await third.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'concurrency_limit_exceeded' } });

  const b1 = await openStream(keyB);
  for (const stream of [true, false]) {
    const full = await chat(keyB, stream);
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('1');
    expect(await full.json()).toMatchObject({ error: { type: 'api_error', code: 'server_overloaded' } });
  }

  // A client that goes away gives its place back at once.
  a1.controller.abort();
  await expect.poll(async () => (await chat(keyB, false)).status, { timeout: 5000 }).toBe(200);

  // Streams that end give theirs back too, and every stream that was let in ends whole.
  for (const s of [a2, b1]) expect(await readToEnd(s.reader)).toContain('data: [DONE]');
  const again = await Promise.all([chat(keyA, false), chat(keyA, false)]);
  expect(again.map((r) => r.status)).toEqual([200, 200]);
});

/** Sends `first` on a raw connection and waits for the server to answer or close it; the text it sent and when. */
function stall(first: string): Promise<{ reply: string; ms: number }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(first));
    let reply = '';
    socket.on('data', (d) => (reply += d.toString()));
    socket.on('close', () => resolve({ reply, ms: Date.now() - started }));
    socket.on('error', reject);
    socket.setTimeout(15_000, () => socket.destroy(new Error('the server kept a stalled connection open')));
  });
}

test('a client slow to send its headers or its body is let go with 408; a long reply is not cut', async () => {
  const host = new URL(server.url).host;
  const headers = await stall(`GET /api/health HTTP/1.1\r\nHost: ${host}\r\n`);
  expect(headers.reply).toMatch(/^HTTP\/1\.1 408/);
  expect(headers.ms).toBeLessThan(5000);

  const body = await stall(
    `POST /api/v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${keyA}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"model":',
  );
  expect(body.ms).toBeGreaterThanOrEqual(1500);
  expect(body.ms).toBeLessThan(8000);

  // A stream of more than TRIAD_REQUEST_TIMEOUT_MS (2 s) still ends whole.
  const started = Date.now();
  const { reader } = await openStream(keyB);
  const text = await readToEnd(reader);
  expect(Date.now() - started).toBeGreaterThan(2000);
  expect(text).toContain('data: [DONE]');
});

/** Reads one whole HTTP/1.1 reply (Content-Length or chunked) from a raw connection. */
function readReply(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString();
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      const whole = length ? text.length >= end + 4 + Number(length[1]) : text.endsWith('\r\n0\r\n\r\n');
      if (!whole) return;
      socket.off('data', onData).off('error', reject);
      resolve(text);
    };
    socket.on('data', onData).on('error', reject);
  });
}

test('an idle kept-alive connection is kept TRIAD_KEEP_ALIVE_TIMEOUT_MS (here 2.5 s), then closed', async () => {
  const url = new URL(server.url);
  const socket = net.connect(Number(url.port), url.hostname);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  const ask = async () => {
    socket.write(`GET /api/health HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    return readReply(socket);
  };
  const first = await ask();
  expect(first).toMatch(/^HTTP\/1\.1 200/);
  expect(first).toMatch(/\r\nKeep-Alive: timeout=2\r\n/i);
  // Idle for 1.5 s: the same connection still serves.
  await new Promise((r) => setTimeout(r, 1500));
  expect(await ask()).toMatch(/^HTTP\/1\.1 200/);
  // Then idle: the server closes it after the timeout (Node's own default would be 5 s).
  const idleFrom = Date.now();
  const idleMs = (await closed) - idleFrom;
  expect(idleMs).toBeGreaterThanOrEqual(2000);
  expect(idleMs).toBeLessThan(4500);
});
