import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from './prober';

// A model server's model list, over a real socket: `/open/v1/models` answers anyone, `/locked/v1/models`
// only Basic user:p@ss, `/broken/v1/models` answers 200 with text that is not JSON.
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const list = JSON.stringify({ object: 'list', data: [{ id: 'm-1', context_length: 8192, owned_by: 'me' }, { id: 'm-2' }] });
    if (req.url === '/broken/v1/models') return void res.end('<html>');
    if (req.url === '/odd/v1/models')
      return void res.end(
        JSON.stringify({
          data: [
            { id: 'constructor' },
            { id: 'nul\u0000' },
            { id: 'half\ud800' },
            { id: 'm-1', owned_by: 'o\udc00' },
            { id: 'm-1' },
            { id: 'x'.repeat(201) },
          ],
        }),
      );
    if (req.url === '/silent/v1/models') return; // never answers
    if (req.url === '/locked/v1/models' && req.headers.authorization !== `Basic ${Buffer.from('user:p@ss').toString('base64')}`) {
      res.statusCode = 401;
      return void res.end('{"error":"who are you?"}');
    }
    res.setHeader('content-type', 'application/json');
    res.end(list);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections(); // the silent route's
  return new Promise<void>((r) => server.close(() => r()));
});

describe('probe', () => {
  it("reads a server's model list, and what its entries say beyond the id", async () => {
    const r = await probe({ baseUrl: `http://${base}/open/v1`, apiKeyEnc: null });
    expect(r).toMatchObject({ ok: true, models: ['m-1', 'm-2'], facts: { 'm-1': { context_length: 8192, owned_by: 'me' }, 'm-2': {} } });
  });

  it('leaves out ids Triad could not store (a NUL, half a surrogate pair, too long) and repeats; any id is a model, `constructor` too', async () => {
    const r = await probe({ baseUrl: `http://${base}/odd/v1`, apiKeyEnc: null });
    expect(r).toMatchObject({ ok: true, models: ['constructor', 'm-1'] });
    expect(r.ok && JSON.parse(JSON.stringify(r.facts))).toEqual({ constructor: {}, 'm-1': {} });
  });

  it('sends the credentials of a base URL as Basic authorization (fetch refuses such a URL)', async () => {
    expect(await probe({ baseUrl: `http://user:p%40ss@${base}/locked/v1`, apiKeyEnc: null })).toMatchObject({
      ok: true,
      models: ['m-1', 'm-2'],
    });
    expect(await probe({ baseUrl: `http://${base}/locked/v1`, apiKeyEnc: null })).toMatchObject({
      ok: false,
      error: 'GET /models answered 401',
    });
  });

  it('says what went wrong: not JSON, nothing listening', async () => {
    expect(await probe({ baseUrl: `http://${base}/broken/v1`, apiKeyEnc: null })).toMatchObject({
      ok: false,
      error: 'GET /models did not answer JSON',
    });
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    expect(await probe({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKeyEnc: null })).toMatchObject({ ok: false, error: 'ECONNREFUSED' });
  });

  it('gives up on a server that does not answer in its time, and says so', async () => {
    const started = performance.now();
    const r = await probe({ baseUrl: `http://${base}/silent/v1`, apiKeyEnc: null }, 300);
    expect(r).toMatchObject({ ok: false, error: 'no answer in 300 ms' });
    expect(r.latencyMs).toBeGreaterThanOrEqual(299);
    expect(performance.now() - started).toBeLessThan(3000);
  });
});
