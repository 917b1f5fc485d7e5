import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoAgent, stopDemoAgent } from './demo-agents';

/*
 * A demo node's agent runs in the server's process; when its model server does not list its models at
 * start (the server busy, say), it is started again, 1 s doubling, until it is stopped. Against a real
 * model server on a socket (`/loading/v1` answers 503, `/ready/v1` its list); no Triad listens where
 * the agents dial (they keep trying, quietly).
 */
const asked = { loading: [] as number[], ready: [] as number[] };
let modelServer: http.Server;
let base: string;
beforeAll(async () => {
  const nobody = http.createServer();
  await new Promise<void>((r) => nobody.listen(0, '127.0.0.1', r));
  process.env.PORT = String((nobody.address() as AddressInfo).port); // where the agents dial: closed below
  await new Promise<void>((r) => nobody.close(() => r()));
  modelServer = http.createServer((req, res) => {
    const which = /^\/(loading|ready)\/v1\/models$/.exec(req.url ?? '')?.[1] as keyof typeof asked | undefined;
    if (!which) return void res.writeHead(404).end();
    asked[which].push(Date.now());
    if (which === 'loading') return void res.writeHead(503).end('{"error":"loading"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'triad-demo' }] }));
  });
  await new Promise<void>((r) => modelServer.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(modelServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => modelServer.close(() => r())));

describe('demo agents', () => {
  it('an agent whose model server does not list its models is started again, a second later, then two; stopped, it stays stopped', async () => {
    startDemoAgent('demo-node-008', `${base}/loading/v1`, 'triad-demo', 'pt_sec_not-used-here');
    await expect.poll(() => asked.loading.length, { timeout: 5000 }).toBe(2);
    expect(asked.loading[1]! - asked.loading[0]!).toBeGreaterThanOrEqual(900);
    // Stopped (its second start failing, or waiting for the third): nothing starts after (the next was 2 s on).
    await stopDemoAgent('demo-node-008');
    await new Promise((r) => setTimeout(r, 2500));
    expect(asked.loading).toHaveLength(2);
  });

  it('an agent that started runs until it is stopped', async () => {
    startDemoAgent('demo-node-009', `${base}/ready/v1`, 'triad-demo', 'pt_sec_not-used-here');
    await expect.poll(() => asked.ready.length, { timeout: 5000 }).toBe(1);
    expect(await stopDemoAgent('demo-node-009')).toBe(true);
    expect(await stopDemoAgent('demo-node-009')).toBe(false);
  });
});
