import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrganization } from '@/lib/auth/credentials';
import { database, getDb } from '@/lib/db/client';
import { z } from 'zod';
import { json, NODE_ROUTE, route, type RouteDoc } from './route';

/*
 * The route kernel's last resort: a handler's reply that cannot be written (here a body with a
 * BigInt, which JSON cannot hold) still reaches the client as the chat group's 500, in its error
 * shape and without a trace, through Next's router (the Web function) and the server's direct
 * dispatch (the Node function) alike. On the process-wide embedded database of a fresh data directory.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-chat-route-'));
process.env.TRIAD_DATA_DIR = dataDir;
delete process.env.DATABASE_URL;

const doc: RouteDoc = { summary: 'a reply JSON cannot hold', tag: 'Chat', replies: { 200: { description: 'never' } }, errors: [500] };
const chat = route({ auth: 'apiKey', format: 'chat', doc }, async () => json({ count: 1n }));
const expected = { error: { message: 'The server had an error while processing the request.', type: 'api_error', code: 'internal_error' } };
// What a handler reads of its request (lib/http/request-view.ts) and of its context, echoed back.
const echo = route(
  { auth: 'apiKey', format: 'chat', doc, body: z.object({ n: z.number() }) },
  async ({ request, body, bodyText, address }) =>
    json({
      method: request.method,
      url: request.url,
      path: request.path,
      multi: request.headers.get('x-multi'),
      missing: request.headers.get('x-missing'),
      body,
      bodyText,
      address,
      aborted: request.signal.aborted,
    }),
);
// A principal that brings the address itself (alias retrieval) sets the context's.
const aliasEcho = route({ auth: 'aliasAccess', doc }, async ({ bearer, address }) => json({ bearer, address }));
let key: string;
let server: http.Server;
let url: string;
let echoServer: http.Server;
let echoUrl: string;

beforeAll(async () => {
  const db = await getDb();
  const org = await createOrganization(db, { name: 'Last resort' });
  key = (await createApiKey(db, { orgId: org.id })).key;
  const node = chat[NODE_ROUTE];
  server = http.createServer((req, res) => void node(req, res, [['x-base', 'b']]));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/chat/completions`;
  echoServer = http.createServer((req, res) => void echo[NODE_ROUTE](req, res, []));
  await new Promise<void>((r) => echoServer.listen(0, '127.0.0.1', r));
  echoUrl = `http://127.0.0.1:${(echoServer.address() as AddressInfo).port}/api/v1/chat/completions?x=1`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await new Promise((r) => echoServer.close(r));
  await (await database()).close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a reply that cannot be written', () => {
  const init = () => ({ method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{}' });

  it('is a 500 in the chat error shape through the Web function', async () => {
    const res = await chat(new Request('http://localhost/api/v1/chat/completions', init()));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual(expected);
  });

  it('is the same 500 through the Node function, on a real socket, and the connection stays usable', async () => {
    const res = await fetch(url, init());
    expect(res.status).toBe(500);
    expect(res.headers.get('x-base')).toBe('b');
    const text = await res.text();
    expect(JSON.parse(text)).toEqual(expected);
    expect(text).not.toMatch(/BigInt|at .*\.ts/);
    expect((await fetch(url, init())).status).toBe(500);
  });
});

describe('what a handler reads of its request', () => {
  const text = '{ "n": 7 }';
  const expectEcho = (got: Record<string, unknown>, host: string) =>
    expect(got).toEqual({
      method: 'POST',
      url: `http://${host}/api/v1/chat/completions?x=1`,
      path: '/api/v1/chat/completions',
      multi: 'a, b',
      missing: null,
      body: { n: 7 },
      bodyText: text,
      address: 'unknown', // no peer under this test's server key, no trusted proxy
      aborted: false,
    });

  it('is the same through the Node function (a real socket, a repeated header joined) and the Web function', async () => {
    const headers = [
      ['authorization', `Bearer ${key}`],
      ['content-type', 'application/json'],
      ['x-multi', 'a'],
      ['x-multi', 'b'],
    ] as [string, string][];
    const viaNode = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const nodeHeaders = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-multi': ['a', 'b'] }; // two lines
      const req = http.request(echoUrl, { method: 'POST', headers: nodeHeaders }, (res) => {
        let out = '';
        res
          .on('data', (d) => (out += d))
          .on('end', () => {
            try {
              resolve(JSON.parse(out));
            } catch {
              reject(new Error(`${res.statusCode}: ${out}`));
            }
          });
      });
      req.on('error', reject);
      req.end(text);
    });
    expectEcho(viaNode, new URL(echoUrl).host);
    const viaWeb = await echo(new Request('http://localhost/api/v1/chat/completions?x=1', { method: 'POST', headers, body: text }));
    expectEcho(await viaWeb.json(), 'localhost');
  });
});

describe('a principal that knows the address (aliasAccess)', () => {
  it('reaches the handler with it, and its bearer', async () => {
    const res = await aliasEcho(new Request('http://localhost/api/v1/aliases/x', { headers: { authorization: 'Bearer eyJ.a.b' } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ bearer: 'eyJ.a.b', address: 'unknown' });
  });
});
