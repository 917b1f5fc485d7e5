import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Reply, sendNodeReply, toResponse } from './reply';

/*
 * The two ways a Reply leaves: as a Web Response (Next's router) and written to Node's response (the
 * server's direct dispatch). Over real sockets: the same bytes, the client's pace, and the client
 * going away.
 */
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A server that answers every request with `make()`, through sendNodeReply. */
async function serve(make: () => Reply): Promise<string> {
  const server = http.createServer((req, res) => {
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort(new Error('client gone'));
    });
    void sendNodeReply(res, make(), [['x-base', 'b']], gone.signal);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const events = (chunks: string[]): Reply => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  stream: {
    run: async (send) => {
      for (const c of chunks) await send(c);
    },
    cancel: () => {},
  },
});

describe('replies', () => {
  it('a JSON reply: the same status, headers and body either way', async () => {
    const reply = (): Reply => ({ status: 404, headers: { 'x-ratelimit-limit': '60' }, json: { error: { message: 'nope' } } });
    const res = await fetch(await serve(reply));
    const web = toResponse(reply());
    expect(res.status).toBe(404);
    expect(web.status).toBe(404);
    for (const r of [res, web]) {
      expect(r.headers.get('content-type')).toBe('application/json');
      expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    }
    expect(res.headers.get('x-base')).toBe('b');
    expect(await res.text()).toBe(await web.text());
  });

  it("a reply's own header replaces the base's of the same name, in any case; a JSON body is application/json, once", async () => {
    const reply = (): Reply => ({ status: 200, headers: { 'X-Base': 'mine', 'Content-Type': 'text/plain' }, json: { ok: true } });
    const res = await fetch(await serve(reply));
    // (fetch joins a repeated header with ", ": one value here means it came once.)
    expect(res.headers.get('x-base')).toBe('mine');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(await res.json()).toEqual({ ok: true });
  });

  it('a body that cannot be written throws before any header is sent (the caller can still answer)', async () => {
    let thrown: unknown;
    const server = http.createServer((_req, res) => {
      sendNodeReply(res, { status: 200, headers: {}, json: { n: 1n } }, [['x-base', 'b']], new AbortController().signal)
        .catch((e: unknown) => (thrown = e))
        .finally(() => {
          expect(res.headersSent).toBe(false);
          void sendNodeReply(res, { status: 500, headers: {}, json: { error: 'internal' } }, [], new AbortController().signal);
        });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(thrown).toBeInstanceOf(TypeError);
    expect(res.status).toBe(500);
    expect(res.headers.get('x-base')).toBeNull();
    expect(await res.json()).toEqual({ error: 'internal' });
  });

  it('a stream: the same chunks in order either way', async () => {
    const chunks = ['data: 1\n\n', 'data: é\n\n', 'data: [DONE]\n\n'];
    const res = await fetch(await serve(() => events(chunks)));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe(chunks.join(''));
    expect(await toResponse(events(chunks)).text()).toBe(chunks.join(''));
  });

  it('a stream waits for a client that does not read, then delivers everything', async () => {
    const piece = 'x'.repeat(64 * 1024);
    const total = 400; // 25 MiB: far more than the socket buffers hold
    let produced = 0;
    const url = await serve(() => ({
      status: 200,
      headers: {},
      stream: {
        run: async (send) => {
          for (; produced < total; produced++) await send(piece);
        },
        cancel: () => {},
      },
    }));
    const res = await new Promise<http.IncomingMessage>((resolve) => http.get(url, resolve));
    res.pause();
    await new Promise((r) => setTimeout(r, 300));
    expect(produced).toBeGreaterThan(0);
    expect(produced).toBeLessThan(total / 2); // held back by the client, not buffered in the server
    let received = 0;
    res.on('data', (c: Buffer) => (received += c.length));
    res.resume();
    await new Promise((r) => res.on('end', r));
    expect(received).toBe(total * piece.length);
  });

  it('a client that goes away cancels the stream with the reason', async () => {
    let cancelled: unknown = null;
    let stop!: () => void;
    const url = await serve(() => ({
      status: 200,
      headers: {},
      stream: {
        run: async (send) => {
          await send('data: first\n\n');
          await new Promise<void>((r) => (stop = r)); // an upstream that is slow to answer
        },
        cancel: (reason) => {
          cancelled = reason;
          stop();
        },
      },
    }));
    await new Promise<void>((resolve) => {
      const req = http.get(url, (res) => res.once('data', () => (req.destroy(), resolve())));
    });
    await expect.poll(() => cancelled).toBeInstanceOf(Error);
    expect((cancelled as Error).message).toBe('client gone');
  });
});

describe('a slow reader of the Web Response', () => {
  it('holds the producer back once 64 KB are queued, and still gets every byte', async () => {
    let produced = 0;
    const chunk = 'x'.repeat(1024);
    const reply: Reply = {
      status: 200,
      headers: {},
      stream: {
        run: async (send) => {
          for (let i = 0; i < 4096; i++) {
            await send(chunk); // 4 MB in all, as fast as it is let
            produced += chunk.length;
          }
        },
        cancel: () => {},
      },
    };
    const res = toResponse(reply);
    await new Promise((r) => setTimeout(r, 100)); // no one reads meanwhile
    expect(produced).toBeLessThanOrEqual(80 * 1024);
    expect((await res.text()).length).toBe(4096 * 1024);
    expect(produced).toBe(4096 * 1024);
  });
});
