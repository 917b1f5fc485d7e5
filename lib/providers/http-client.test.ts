import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/core/errors';
import type { ModelCall, Wire, WireReply } from './client';
import { httpModelClient } from './http-client';

/*
 * The HTTP model client's time limit and abort handling, against a real local server that misbehaves
 * on purpose: it never answers, stops half-way through a reply, or stops after one streamed chunk.
 */
let server: http.Server;
let baseUrl: string;
const closed: string[] = [];
let connections = 0;
const sse = (res: http.ServerResponse, obj: unknown) => res.write(`data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n\n`);

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const { model, stream } = JSON.parse(raw) as { model: string; stream: boolean };
    res.on('close', () => closed.push(model));
    if (model === 'silent') return; // never answers
    if (model === 'echo-body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: raw }, finish_reason: 'stop' }] }));
      return;
    }
    if (model === 'echo-headers') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [{ message: { content: JSON.stringify({ path: req.url, headers: req.headers }) }, finish_reason: 'stop' }],
        }),
      );
      return;
    }
    if (model === 'busy') {
      res.writeHead(429, { 'content-type': 'application/json', 'Retry-After': '7' });
      res.end(JSON.stringify({ error: { message: 'slow down' } }));
      return;
    }
    if (model === 'in-pieces') {
      // A whole reply in many writes, a multi-byte letter split across two of them.
      res.writeHead(200, { 'content-type': 'application/json' });
      const bytes = Buffer.from(JSON.stringify({ choices: [{ message: { content: 'ß'.repeat(5000) }, finish_reason: 'stop' }] }));
      for (let i = 0; i < bytes.length; i += 1001) {
        res.write(bytes.subarray(i, i + 1001));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
      return;
    }
    if (model === 'half') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[{"message":{"content":"ha');
      return; // and nothing more
    }
    if (model === 'late-end' && stream) {
      // A whole stream, but the response itself ends only a while after [DONE].
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      sse(res, { choices: [{ index: 0, delta: { content: 'all' }, finish_reason: null }] });
      sse(res, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      sse(res, '[DONE]');
      setTimeout(() => res.end(), 300);
      return;
    }
    if (model === 'burst-end' && stream) {
      // The first chunk, then (while the reader still holds it) the rest, [DONE] and the end at once.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ index: 0, delta: { content: 'one ' }, finish_reason: null }] });
      await new Promise((r) => setTimeout(r, 50));
      sse(res, { choices: [{ index: 0, delta: { content: 'two' }, finish_reason: null }] });
      sse(res, { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      sse(res, '[DONE]');
      res.end();
      return;
    }
    if (model === 'burst-bad' && stream) {
      // A chunk; then two more and a line that is not JSON in one write.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ index: 0, delta: { content: 'one ' }, finish_reason: null }] });
      await new Promise((r) => setTimeout(r, 50));
      const line = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
      res.write(`${line('two ')}${line('three')}data: {oops\n\n`);
      return;
    }
    if (model === 'array-line' && stream) {
      // A chunk, then a line that is JSON but no chunk (an array: a client reading `.choices` of it would break).
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ index: 0, delta: { content: 'one' }, finish_reason: null }] });
      res.write('data: []\n\n');
      return;
    }
    if ((model === 'no-choices' || model === 'usage-alone') && stream) {
      // A chunk, a chunk of usage without its (empty) choices, then (no-choices) an object with no choices at all.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ index: 0, delta: { content: 'one' }, finish_reason: 'stop' }] });
      sse(res, { id: 'x', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
      if (model === 'no-choices') sse(res, { id: 'x', object: 'chat.completion.chunk' });
      return void res.end('data: [DONE]\n\n');
    }
    if (model === 'one-chunk' && stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      sse(res, { choices: [{ index: 0, delta: { content: 'first' }, finish_reason: null }] });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        choices: [{ message: { content: 'fine' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = () => httpModelClient({ baseUrl, timeoutMs: 300 });
const ask = (model: string, signal = new AbortController().signal, stream = false): ModelCall => ({
  path: '/chat/completions',
  body: { model, messages: [{ role: 'user', content: 'hi' }], stream },
  signal,
});

/** A stream's chunks, the sizes of the batches they came in, and the error that ended it (or null). */
async function drain(events: AsyncGenerator<Wire[]>) {
  const seen: WireReply[] = [];
  const texts: (string | undefined)[] = [];
  const batches: number[] = [];
  try {
    for await (const batch of events) {
      batches.push(batch.length);
      for (const e of batch) {
        seen.push(e.value);
        texts.push(e.text);
      }
    }
  } catch (e) {
    return { seen, texts, batches, error: e };
  }
  return { seen, texts, batches, error: null };
}

describe('HTTP model client streams', () => {
  it('ends at [DONE] without waiting for the response to end, and keeps the connection for the next request', async () => {
    const before = connections;
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const { seen, texts, error } = await drain(client().stream(ask('late-end', undefined, true)));
      expect(error).toBeNull();
      // The chunks as the server wrote them, and their texts byte for byte.
      const written = [
        { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: { content: 'all' }, finish_reason: null }] },
        { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      ];
      expect(seen).toEqual(written);
      expect(texts).toEqual(written.map((c) => JSON.stringify(c)));
      expect(Date.now() - started).toBeLessThan(250);
      // The rest of the response is drained in the background; then the connection is free again.
      await new Promise((r) => setTimeout(r, 400));
    }
    expect(connections - before).toBe(1);
  });
  it('gives a slow reader what came, and the end, while it held the first chunk', async () => {
    const seen: string[] = [];
    for await (const batch of client().stream(ask('burst-end', undefined, true))) {
      for (const e of batch) seen.push(e.value.choices![0]!.delta?.content ?? `(${e.value.choices![0]!.finish_reason})`);
      if (seen.length === 1) await new Promise((r) => setTimeout(r, 200));
    }
    expect(seen).toEqual(['one ', 'two', '(stop)']);
  });

  it('hands over the chunks of one read together; a bad line ends the stream after those before it', async () => {
    const { seen, batches, error } = await drain(client().stream(ask('burst-bad', undefined, true)));
    expect(seen.map((c) => c.choices![0]!.delta?.content)).toEqual(['one ', 'two ', 'three']);
    expect(batches).toEqual([1, 2]);
    expect(error).toMatchObject({ status: 502, message: expect.stringContaining('not JSON') });
  });

  it('ends the stream at a line that is JSON but not a chunk (an array), after those before it', async () => {
    const { seen, error } = await drain(client().stream(ask('array-line', undefined, true)));
    expect(seen.map((c) => c.choices![0]!.delta?.content)).toEqual(['one']);
    expect(error).toMatchObject({ status: 502, message: expect.stringContaining('not a chunk') });
  });

  it('gives a chunk of usage alone its empty choices; ends the stream at an object with no choices and no usage', async () => {
    const alone = await drain(client().stream(ask('usage-alone', undefined, true)));
    expect(alone.error).toBeNull();
    expect(alone.seen[1]).toEqual({ id: 'x', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }, choices: [] });
    const none = await drain(client().stream(ask('no-choices', undefined, true)));
    expect(none.seen).toHaveLength(2);
    expect(none.error).toMatchObject({ status: 502, message: expect.stringContaining('not a chunk') });
  });

  it("passes another dialect's events through in the batches they came in, up to [DONE]", async () => {
    const batches: string[][] = [];
    for await (const batch of client().relay(ask('late-end', undefined, true))) batches.push(batch);
    expect(batches.flat().map((d) => JSON.parse(d).choices[0].delta.content ?? null)).toEqual(['', 'all', null]);
    expect(batches.flat()).not.toContain('[DONE]');
  });
});

describe('HTTP model client time limit', () => {
  it('answers a whole reply within the limit', async () => {
    const written = {
      choices: [{ message: { content: 'fine' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    await expect(client().complete(ask('ok'))).resolves.toEqual({ value: written, text: JSON.stringify(written) });
  });

  it('reads a reply that comes in many pieces, and a refusal with its Retry-After', async () => {
    const whole = await client().complete(ask('in-pieces'));
    expect(whole.value.choices![0]!.message!.content).toBe('ß'.repeat(5000));
    const busy = await client()
      .complete(ask('busy'))
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ApiError);
    expect(busy).toMatchObject({ status: 429, code: 'upstream_rate_limited', headers: { 'Retry-After': '7' } });
  });

  it("sends the call's JSON text as it is when it has one, else the body encoded", async () => {
    const text = '{"model":"echo-body",  "messages":[{"role":"user","content":"hi"}], "x_extra":1}';
    const sent = await client().complete({ ...ask('echo-body'), json: text });
    expect(sent.value.choices![0]!.message!.content).toBe(text);
    const encoded = await client().complete(ask('echo-body'));
    expect(encoded.value.choices![0]!.message!.content).toBe(JSON.stringify(ask('echo-body').body));
  });

  it('sends the headers a model server needs: Host, the length, the key (as x-api-key too for Messages), the call’s own, Basic for credentials in the URL', async () => {
    const seen = async (opts: Parameters<typeof httpModelClient>[0], call: ModelCall) => {
      const reply = await httpModelClient(opts).complete(call);
      return JSON.parse(reply.value.choices![0]!.message!.content as string) as { path: string; headers: Record<string, string> };
    };
    const host = new URL(baseUrl).host;
    const plain = await seen({ baseUrl, timeoutMs: 300, apiKey: 'sk-test' }, { ...ask('echo-headers'), headers: { traceparent: 'tp-1' } });
    const body = JSON.stringify(ask('echo-headers').body);
    expect(plain.path).toBe('/v1/chat/completions');
    expect(plain.headers).toMatchObject({
      host,
      'content-length': String(Buffer.byteLength(body)),
      'content-type': 'application/json',
      authorization: 'Bearer sk-test',
      traceparent: 'tp-1',
      connection: 'keep-alive',
    });
    expect(plain.headers['x-api-key']).toBeUndefined();
    const messages = await seen({ baseUrl, timeoutMs: 300, apiKey: 'sk-test' }, { ...ask('echo-headers'), path: '/messages' });
    expect(messages.path).toBe('/v1/messages');
    expect(messages.headers).toMatchObject({ 'x-api-key': 'sk-test', authorization: 'Bearer sk-test' });
    const withCredentials = baseUrl.replace('http://', 'http://user:p%40ss@');
    const basic = await seen({ baseUrl: withCredentials, timeoutMs: 300 }, ask('echo-headers'));
    expect(basic.headers.authorization).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    expect(basic.headers.host).toBe(host);
  });

  it('gives up on a server that never answers: 502 naming the limit, and the connection is closed', async () => {
    const started = Date.now();
    const error = await client()
      .complete(ask('silent'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: 'upstream_timeout', message: expect.stringContaining('no reply in 300 ms') });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await expect.poll(() => closed.includes('silent')).toBe(true);
  });

  it('gives up on a reply that stops half-way', async () => {
    const error = await client()
      .complete(ask('half'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, message: expect.stringContaining('no reply in 300 ms') });
  });

  it('streams what came, then fails when the stream goes quiet for longer than the limit', async () => {
    const { seen, error } = await drain(client().stream(ask('one-chunk', undefined, true)));
    expect(seen).toEqual([{ choices: [{ index: 0, delta: { content: 'first' }, finish_reason: null }] }]);
    expect(error).toMatchObject({ status: 502, message: expect.stringContaining('no data for 300 ms') });
  });

  it("a caller's abort is not a time-out: it ends the exchange at once with the abort itself", async () => {
    const caller = new AbortController();
    const pending = client()
      .complete(ask('silent', caller.signal))
      .catch((e: unknown) => e);
    setTimeout(() => caller.abort(new DOMException('client gone', 'AbortError')), 50);
    const error = await pending;
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as Error).name).toBe('AbortError');
  });
});
