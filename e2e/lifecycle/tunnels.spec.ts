import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import WebSocket, { WebSocketServer } from 'ws';
import { runAdmin } from '../support/fixtures';
import { adminApi, chat, type FakeServer, startFake } from '../support/providers';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';
import { sseEvents } from '../support/sse';
import { until } from '../support/until';

/*
 * Nodes that dial in (design §14) end to end: the node agent as a partner runs it (the one file Triad
 * serves, copied to a directory of its own and started with plain `node`), a real Triad, a fake model
 * server on a real socket behind the agent, real partner statistics.
 */

/** The agent file as a partner gets it: downloaded from the server into a directory of its own. */
async function downloadAgent(server: RunningServer): Promise<string> {
  const res = await fetch(`${server.url}/downloads/triad-node.mjs`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('javascript');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'triad-partner-'));
  const file = path.join(dir, 'triad-node.mjs');
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

type Agent = { proc: ChildProcess; output: () => string; exited: Promise<number | null> };
function runAgent(file: string, args: string[], env: Record<string, string> = {}): Agent {
  let out = '';
  const proc = spawn(process.execPath, [file, ...args], {
    cwd: path.dirname(file),
    env: { PATH: process.env.PATH ?? '', ...env } as unknown as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, output: () => out, exited };
}

async function tenant(env: Record<string, string>) {
  const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', 'Tunnels']);
  const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
  const { partner_id, partner_secret } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', 'Home lab']);
  return { orgId: org_id!, orgToken: org_token!, apiKey: api_key!, partnerId: partner_id!, secret: partner_secret! };
}

type NodeEntry = { external_id: string; ip: string; unit_shared: string; usd_earned: string; connection_status: string };
async function nodeEntry(server: RunningServer, t: { orgToken: string; secret: string }, id: string): Promise<NodeEntry | undefined> {
  const res = await fetch(`${server.url}/api/v1/partner/nodes?secret=${t.secret}&limit=100`, {
    headers: { authorization: `Bearer ${t.orgToken}` },
  });
  const body = (await res.json()) as { data: { entries: NodeEntry[] } };
  return body.data.entries.find((e) => e.external_id === id);
}

/** A whole reply's content (chat() gives a stream's content, a whole reply's text). */
const content = (r: { text: string }) =>
  (JSON.parse(r.text) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;

test.describe.configure({ mode: 'serial' });

let server: RunningServer;
let fake: FakeServer;
let agentFile: string;
let t: Awaited<ReturnType<typeof tenant>>;
let env: Record<string, string>;

test.beforeAll(async () => {
  fake = await startFake(await freePort());
  const dataDir = freshDataDir();
  server = await startServer(dataDir, {
    TRIAD_DEMO: '0',
    TRIAD_PROVIDER_PROBE_S: '1',
    TRIAD_GUIDE_DELAY_MS: '0',
    TRIAD_TUNNEL_PRICE_PER_1K: '0.002',
  });
  env = { TRIAD_DATA_DIR: dataDir };
  t = await tenant(env);
  agentFile = await downloadAgent(server);
});
// One hook, in this order: the data directories go once the server that writes them has stopped.
// (afterAll hooks run in the order they are declared: a removal declared first ran while the server
// still wrote its database, and failed the file with ENOTEMPTY.)
test.afterAll(async () => {
  await server?.stop();
  await fake?.kill();
  removeDataDirs();
});

const agentArgs = (node: string, more: string[] = []) => [
  '--server',
  server.url,
  '--node',
  node,
  '--upstream',
  fake.url,
  '--status-every',
  '0',
  ...more,
];

test('the agent from another directory: --help, and one clear line for a missing secret, a wrong one, an unreachable model server', async () => {
  const help = runAgent(agentFile, ['--help']);
  expect(await help.exited).toBe(0);
  for (const flag of [
    '--server',
    '--node',
    '--upstream',
    '--name',
    '--models',
    '--max-concurrency',
    '--secret-file',
    'TRIAD_PARTNER_SECRET',
    'Exit status',
  ])
    expect(help.output()).toContain(flag);

  // What Triad's hello would refuse is refused on the command line.
  const longId = runAgent(agentFile, agentArgs('n'.repeat(201)), { TRIAD_PARTNER_SECRET: t.secret });
  expect(await longId.exited).toBe(2);
  expect(longId.output().trim()).toBe('triad-node: --node: at most 200 characters');

  const noSecret = runAgent(agentFile, agentArgs('gpu-x'));
  expect(await noSecret.exited).toBe(2);
  expect(noSecret.output().trim()).toBe('triad-node: the partner secret is needed: set TRIAD_PARTNER_SECRET or give --secret-file');

  const wrong = runAgent(agentFile, agentArgs('gpu-x'), { TRIAD_PARTNER_SECRET: 'pt_sec_not-a-real-secret' });
  expect(await wrong.exited).toBe(1);
  expect(wrong.output()).toMatch(/refused the partner secret: UNAUTHORIZED: the partner secret is wrong or was rotated\n/);
  expect(wrong.output()).not.toMatch(/\n\s+at /); // no stack
  expect(wrong.output()).not.toContain('cannot reach'); // its first line says the secret was refused, nothing else

  const deadUpstream = runAgent(
    agentFile,
    ['--server', server.url, '--node', 'gpu-x', '--upstream', `http://127.0.0.1:${await freePort()}/v1`],
    {
      TRIAD_PARTNER_SECRET: t.secret,
    },
  );
  expect(await deadUpstream.exited).toBe(3);
  expect(deadUpstream.output()).toMatch(
    /^triad-node: the model server at http:\/\/127\.0\.0\.1:\d+\/v1 cannot be reached \(ECONNREFUSED\)\n$/,
  );

  // A model server that takes the connection and never answers: given up after 5 s, said as such.
  const silent = net.createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const stalled = runAgent(
      agentFile,
      ['--server', server.url, '--node', 'gpu-x', '--upstream', `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`],
      {
        TRIAD_PARTNER_SECRET: t.secret,
      },
    );
    expect(await stalled.exited).toBe(3);
    expect(stalled.output()).toMatch(
      /^triad-node: the model server at http:\/\/127\.0\.0\.1:\d+\/v1 did not answer GET \/models within 5 s\n$/,
    );
  } finally {
    silent.close();
  }
});

test('a Triad that closes the tunnel before its welcome: too many tunnels is said and tried again; a refused hello stops the agent with one line', async () => {
  // Triad as far as the agent can tell: a WebSocket server that takes the upgrade, reads the hello and closes.
  const closes: [number, string][] = [
    [4429, 'too many tunnels for this partner'],
    [4400, 'not a frame of the protocol (node: at most 200 characters)'],
  ];
  const hellos: string[] = [];
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', path: '/api/v1/node/connect' });
  wss.on('connection', (ws) =>
    ws.once('message', (data) => {
      hellos.push(JSON.parse(data.toString()).t);
      ws.close(...closes[Math.min(hellos.length, closes.length) - 1]!);
    }),
  );
  await new Promise((r) => wss.once('listening', r));
  try {
    const triad = `http://127.0.0.1:${(wss.address() as AddressInfo).port}`;
    const agent = runAgent(agentFile, ['--server', triad, '--node', 'gpu-y', '--upstream', fake.url], { TRIAD_PARTNER_SECRET: t.secret });
    expect(await agent.exited).toBe(1);
    expect(hellos).toEqual(['hello', 'hello']);
    const lines = agent.output().trim().split('\n');
    expect(lines[0]).toMatch(/closed the tunnel before welcoming it \(4429: too many tunnels for this partner\)$/);
    expect(lines.at(-1)).toBe(
      `triad-node: ${triad} refused this agent's hello (not a frame of the protocol (node: at most 200 characters)): check --node, --name and the agent's version`,
    );
  } finally {
    await new Promise((r) => wss.close(r));
  }
});

test('the tunnel path answers as its OpenAPI entry says: a plain request 426 with Upgrade, a missing or wrong secret 401, in the statistics error shape', async () => {
  const doc = await (await fetch(`${server.url}/api/openapi.json`)).json();
  const entry = doc.paths['/api/v1/node/connect'].get;
  expect(entry.security).toEqual([{ partnerSecret: [] }]);

  // A browser or curl (or a proxy that dropped the Upgrade header): what the path is for, not a page.
  const plain = await fetch(`${server.url}/api/v1/node/connect`);
  expect(plain.status).toBe(426);
  expect(plain.headers.get('upgrade')).toBe('websocket');
  expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
  expect(await plain.json()).toEqual({
    error: { message: 'UPGRADE_REQUIRED', status: 426, detail: expect.stringContaining('node agent') },
  });

  const url = `${server.url.replace('http', 'ws')}/api/v1/node/connect`;
  const refusal = (headers: Record<string, string>) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.on('unexpected-response', (req, res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
        });
      });
      ws.on('open', () => reject(new Error('the tunnel opened')));
      ws.on('error', () => {});
    });
  const missing = await refusal({});
  const wrong = await refusal({ authorization: 'Bearer pt_sec_not-a-real-secret' });
  expect(missing).toEqual({
    status: 401,
    body: { error: { message: 'UNAUTHORIZED', status: 401, detail: 'the partner secret is needed (Authorization: Bearer <secret>)' } },
  });
  expect(wrong).toEqual({
    status: 401,
    body: { error: { message: 'UNAUTHORIZED', status: 401, detail: 'the partner secret is wrong or was rotated' } },
  });
  for (const status of [plain.status, missing.status, wrong.status]) expect(Object.keys(entry.responses)).toContain(String(status));
});

test('a node connects, serves whole and streamed replies as a provider, earns from what Triad counted, and a client going away cancels its model server', async () => {
  const secretFile = path.join(path.dirname(agentFile), 'secret');
  fs.writeFileSync(secretFile, `${t.secret}\n`, { mode: 0o600 });
  const agent = runAgent(
    agentFile,
    agentArgs('gpu-1', ['--name', 'Basement GPU', '--models', 'fake-echo,fake-slow,fake-inflated', '--secret-file', secretFile]),
  );
  try {
    await until(
      'the agent connected',
      async () => agent.output(),
      (o) => o.includes('connected to'),
    );
    expect(agent.output()).toMatch(/serving 3 model\(s\): fake-echo, fake-inflated, fake-slow/);
    const entry = await until(
      'the node connected',
      () => nodeEntry(server, t, 'gpu-1'),
      (e) => e?.connection_status === 'connected',
    );
    // Registered by its agent, with the address it connects from (not an empty string).
    expect(entry).toMatchObject({ unit_shared: '0', usd_earned: '0', ip: '127.0.0.1' });

    // It is a provider of kind tunnel, named after the node, with the announced models.
    const { body } = await adminApi(server, 'GET', '/providers');
    const tunnel = (
      body.data as unknown as { name: string; kind: string; serves: string[]; node: unknown; health: { state: string } }[]
    ).find((p) => p.kind === 'tunnel')!;
    expect(tunnel.name).toBe('gpu-1'); // named after the node (its public id added when another provider has the name)
    expect(tunnel).toMatchObject({
      serves: ['fake-echo', 'fake-inflated', 'fake-slow'],
      node: { partner_id: t.partnerId, partner_node_id: 'gpu-1' },
    });
    expect(tunnel.health.state).toBe('up');

    const whole = await chat(server, t.apiKey, 'fake-echo', { content: 'through the tunnel' });
    expect(whole).toMatchObject({ status: 200, provider: tunnel.name });
    expect(content(whole)).toBe('Echo: through the tunnel');
    const streamed = await chat(server, t.apiKey, 'fake-echo', { stream: true, content: 'streamed through it' });
    expect(streamed).toMatchObject({ status: 200, provider: tunnel.name, text: 'Echo: streamed through it' });
    // A long reply (the window is smaller than it): passed on whole.
    const long = 'word '.repeat(40_000).trim();
    expect(content(await chat(server, t.apiKey, 'fake-echo', { content: long }))).toBe(`Echo: ${long}`);
    expect((await chat(server, t.apiKey, 'fake-echo', { content: long, stream: true })).text).toBe(`Echo: ${long}`);

    // A node that reports 1 000 times the tokens earns what Triad counted, not what it said.
    expect((await chat(server, t.apiKey, 'fake-inflated', { content: 'inflate me' })).status).toBe(200);

    // The client goes away: the model server's request is aborted.
    const ctl = new AbortController();
    const slow = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-slow', stream: true, messages: [{ role: 'user', content: 'tunnel-cancel-marker' }] }),
      signal: ctl.signal,
    });
    const reader = slow.body!.getReader();
    await reader.read();
    ctl.abort();
    await until(
      'the model server saw the abort',
      () => fake.log() as Promise<{ aborted?: string[] }>,
      (l) => !!l.aborted?.includes('tunnel-cancel-marker'),
    );

    // Earnings: the model server's usage where Triad's own count backs it, Triad's count where it does not.
    await sleep(1500);
    const after = await nodeEntry(server, t, 'gpu-1');
    const units = Number(after!.unit_shared);
    // Echoes (two short, two long), the inflated one (Triad's count: a handful of tokens, not 13 000), the slow one's part.
    expect(units).toBeGreaterThan(2 * 40_000);
    expect(units).toBeLessThan(2 * 40_000 + 1000);
    expect(Number(after!.usd_earned)).toBeCloseTo(units * 0.000002, 9);
    await until(
      'served points in the uptime series',
      async () => {
        const now = Date.now();
        const res = await fetch(
          `${server.url}/api/v1/uptime/series?secret=${t.secret}&partner_node_id=gpu-1&started_at=${now - 3_600_000}&ended_at=${now + 3_600_000}&bucket=hour`,
          { headers: { authorization: `Bearer ${t.orgToken}` } },
        );
        return JSON.stringify(await res.json());
      },
      (s) => /"served":\{"requests":[1-9]/.test(s),
    );
  } finally {
    agent.proc.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  }
  expect(agent.output()).toMatch(/stopped · not connected · 3 model\(s\) · in flight 0 · served [4-9]/);
  await until(
    'the node disconnected',
    () => nodeEntry(server, t, 'gpu-1'),
    (e) => e?.connection_status === 'disconnected',
  );
});

test('kill -9 of the agent mid-stream: the stream ends with an error event, the node disconnects, its model fails fast; it comes back when the agent does', async () => {
  const agent = runAgent(agentFile, agentArgs('gpu-2', ['--models', 'fake-slow,fake-echo']), { TRIAD_PARTNER_SECRET: t.secret });
  await until(
    'the agent connected',
    async () => agent.output(),
    (o) => o.includes('connected to'),
  );
  await until(
    'the node connected',
    () => nodeEntry(server, t, 'gpu-2'),
    (e) => e?.connection_status === 'connected',
  );
  const res = await fetch(`${server.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake-slow', stream: true, messages: [{ role: 'user', content: 'killed mid-stream' }] }),
  });
  expect(res.status).toBe(200); // its head is sent once the first chunk came: the stream is under way
  const text = res.text();
  agent.proc.kill('SIGKILL');
  const events = sseEvents(await text) as { error?: { code?: string } }[];
  expect(events.some((e) => e.error)).toBe(true);
  await until(
    'the node disconnected',
    () => nodeEntry(server, t, 'gpu-2'),
    (e) => e?.connection_status === 'disconnected',
    30_000,
  );
  const started = Date.now();
  const failed = await chat(server, t.apiKey, 'fake-slow');
  expect(failed.status).toBe(503);
  expect(Date.now() - started).toBeLessThan(2000);

  const again = runAgent(agentFile, agentArgs('gpu-2', ['--models', 'fake-slow,fake-echo']), { TRIAD_PARTNER_SECRET: t.secret });
  try {
    await until(
      'the agent connected again',
      async () => again.output(),
      (o) => o.includes('connected to'),
    );
    expect(content(await chat(server, t.apiKey, 'fake-echo', { content: 'back again' }))).toBe('Echo: back again');
    await until(
      'the node connected again',
      () => nodeEntry(server, t, 'gpu-2'),
      (e) => e?.connection_status === 'connected',
    );
  } finally {
    again.proc.kill('SIGKILL');
    await again.exited;
  }
});

test('Triad stopped (SIGTERM) mid-stream: the stream through the tunnel ends whole, then the tunnel closes with 1001 and the agent tries again; a tunnel still saying hello is closed at once', async () => {
  test.setTimeout(60_000);
  const dataDir = freshDataDir();
  const own = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_GUIDE_DELAY_MS: '0', TRIAD_SHUTDOWN_DEADLINE_MS: '30000' });
  const mine = await tenant({ TRIAD_DATA_DIR: dataDir });
  const args = ['--server', own.url, '--node', 'gpu-drain', '--upstream', fake.url, '--models', 'fake-slow', '--status-every', '0'];
  const agent = runAgent(agentFile, args, { TRIAD_PARTNER_SECRET: mine.secret });
  try {
    await until(
      'the node connected',
      () => nodeEntry(own, mine, 'gpu-drain'),
      (e) => e?.connection_status === 'connected',
    );
    // fake-slow: 60 words, one every 200 ms (12 s); Triad is told to stop a second in. The client keeps
    // its connection after the reply for as long as it likes (node:http's keep-alive agent), as a
    // pooling client or a proxy does: the server must close it, not wait for it.
    const keeper = new http.Agent({ keepAlive: true });
    const text = new Promise<string>((resolve, reject) => {
      const req = http.request(
        `${own.url}/api/v1/chat/completions`,
        { method: 'POST', agent: keeper, headers: { authorization: `Bearer ${mine.apiKey}`, 'content-type': 'application/json' } },
        (res) => {
          expect(res.statusCode).toBe(200);
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ model: 'fake-slow', stream: true, messages: [{ role: 'user', content: 'through a restart' }] }));
    });
    // And a tunnel that has not said its hello yet (an agent connecting just then): closed at once.
    const silent = new WebSocket(`${own.url.replace('http', 'ws')}/api/v1/node/connect`, {
      headers: { authorization: `Bearer ${mine.secret}` },
    });
    await new Promise((r) => silent.on('open', r));
    const silentClosed = new Promise<number>((resolve) => silent.on('close', (code) => resolve(code)));
    await sleep(1000);
    const stopping = Date.now();
    const stopped = own.stop('SIGTERM');
    expect(await silentClosed).toBe(1001);
    expect(Date.now() - stopping).toBeLessThan(5000);
    const raw = await text;
    const ended = Date.now();
    const events = sseEvents(raw) as { error?: unknown; choices?: { delta?: { content?: string } }[] }[];
    expect(events.some((e) => e.error)).toBe(false);
    expect(events.map((e) => e.choices?.[0]?.delta?.content ?? '').join('')).toContain('w59');
    expect(raw).toContain('data: [DONE]');
    expect(await stopped).toBe(0);

    expect(Date.now() - ended).toBeLessThan(5000); // nothing held the server's close until its deadline (30 s here)
    expect(fs.existsSync(path.join(dataDir, 'triad.lock'))).toBe(false);
    keeper.destroy();
    await until(
      'the agent told that Triad went away, and trying again',
      async () => agent.output(),
      (o) => /disconnected from .* \(1001: Triad is shutting down\)/.test(o),
    );
    expect(agent.proc.exitCode).toBeNull(); // it keeps trying, for when Triad is back
  } finally {
    agent.proc.kill('SIGKILL');
    await agent.exited;
    await own.stop();
  }
});

test('rotating the partner secret closes its tunnels: the agent stops with one line', async () => {
  const agent = runAgent(agentFile, agentArgs('gpu-3', ['--models', 'fake-echo']), { TRIAD_PARTNER_SECRET: t.secret });
  await until(
    'the agent connected',
    async () => agent.output(),
    (o) => o.includes('connected to'),
  );
  const res = await fetch(`${server.url}/api/org/partners/${t.partnerId}/rotate-secret`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.orgToken}` },
  });
  expect(res.status).toBe(200);
  t.secret = ((await res.json()) as { data: { secret: string } }).data.secret;
  expect(await agent.exited).toBe(1);
  expect(agent.output()).toMatch(
    /triad-node: .* closed the tunnel: the partner secret was rotated; start the agent with the new secret\n$/,
  );
  await until(
    'the node disconnected',
    () => nodeEntry(server, t, 'gpu-3'),
    (e) => e?.connection_status === 'disconnected',
  );
});

test('malformed and oversized frames close that tunnel with a close code, and nothing else: a stream on another tunnel goes on', async () => {
  const agent = runAgent(agentFile, agentArgs('gpu-4', ['--models', 'fake-slow']), { TRIAD_PARTNER_SECRET: t.secret });
  try {
    await until(
      'the agent connected',
      async () => agent.output(),
      (o) => o.includes('connected to'),
    );
    const res = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-slow', stream: true, messages: [{ role: 'user', content: 'goes on' }] }),
    });
    const streaming = res.text();

    const helloOf = (node: string, models: string[]) => JSON.stringify({ t: 'hello', node, models, max_concurrency: 1, window: 65536 });
    const bad = [
      'not json',
      '{"t":"hello"}',
      helloOf('bad-1', []) + 'x',
      JSON.stringify({ t: 'data', id: 1, d: 'x' }), // before any hello
      // Names Triad could not store (a NUL, half a surrogate pair): refused as the protocol's, not failed in the database.
      helloOf('bad-nul', ['fake-slow', 'm\u0000']),
      helloOf('bad-\ud800', ['fake-slow']),
    ];
    const closes: [number, string][] = [];
    const url = `${server.url.replace('http', 'ws')}/api/v1/node/connect`;
    const open = () => new WebSocket(url, { headers: { authorization: `Bearer ${t.secret}` } });
    const closed = (ws: WebSocket) =>
      new Promise<[number, string]>((resolve) => ws.on('close', (code, reason) => resolve([code, reason.toString()])));
    for (const text of bad) {
      const ws = open();
      await new Promise((r) => ws.on('open', r));
      ws.send(text);
      closes.push(await closed(ws));
    }
    // After a good hello: a frame for a request never opened, data over the credit, a models frame with a NUL, a binary frame, a frame over the size limit.
    const hello = helloOf('bad-2', ['fake-slow']);
    const afterHello = [
      JSON.stringify({ t: 'end', id: 99 }),
      JSON.stringify({ t: 'models', models: ['fake-slow', 'x\u0000'] }),
      Buffer.from([1, 2, 3]),
      'x'.repeat(1024 * 1024 + 10),
    ];
    for (const after of afterHello) {
      const ws = open();
      await new Promise((r) => ws.on('open', r));
      ws.send(hello);
      await new Promise((r) => ws.once('message', r)); // the welcome
      ws.send(after);
      closes.push(await closed(ws));
    }
    expect(closes.map(([code]) => code)).toEqual([4400, 4400, 4400, 4400, 4400, 4400, 4400, 4400, 4400, 1009]);
    const reasons = closes.map(([, reason]) => reason);
    expect(reasons[0]).toBe('not a frame of the protocol: not JSON');
    expect(reasons[4]).toBe('not a frame of the protocol (models.1: must not hold a NUL character or half a surrogate pair)');
    expect(reasons[5]).toBe('not a frame of the protocol (node: must not hold a NUL character or half a surrogate pair)');
    expect(reasons[7]).toBe('not a frame of the protocol (models.1: must not hold a NUL character or half a surrogate pair)');
    // Neither refused name reached the node list.
    const listed = await fetch(`${server.url}/api/v1/partner/nodes?secret=${t.secret}`, {
      headers: { authorization: `Bearer ${t.orgToken}` },
    });
    expect(JSON.stringify(await listed.json())).not.toMatch(/bad-nul|bad-\\ud800|bad-\ufffd/);

    // Fuzz: random frames after a hello (fixed seed). A frame that breaks the protocol closes its
    // tunnel with 4400; one that happens to be valid leaves it open; the server never falls over.
    const frameLike = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.json({ maxDepth: 3 }),
      fc
        .record({
          t: fc.constantFrom('head', 'data', 'end', 'win', 'fail', 'models', 'drain', 'open', 'cancel', 'welcome', 'hello', 'x'),
          id: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.string({ maxLength: 3 }), fc.constant(2 ** 40)),
          d: fc.string({ maxLength: 10 }),
          n: fc.integer({ min: -10, max: 10 }),
          status: fc.integer({ min: 0, max: 1000 }),
          models: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
        })
        .map((o) => JSON.stringify(o)),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(frameLike, async (text) => {
        const ws = open();
        await new Promise((r) => ws.on('open', r));
        ws.send(JSON.stringify({ t: 'hello', node: `fuzz-${n++}`, models: ['fake-slow'], max_concurrency: 1, window: 65536 }));
        await new Promise((r) => ws.once('message', r));
        ws.send(text);
        const code = await Promise.race([closed(ws).then(([c]) => c), sleep(300).then(() => 0)]);
        ws.terminate();
        return code === 0 || code === 4400;
      }),
      { numRuns: 40, seed: 20261124 },
    );
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
    const events = sseEvents(await streaming) as { error?: unknown; choices?: { delta?: { content?: string } }[] }[];
    expect(events.some((e) => e.error)).toBe(false);
    expect(events.map((e) => e.choices?.[0]?.delta?.content ?? '').join('')).toContain('w59');
  } finally {
    agent.proc.kill('SIGKILL');
    await agent.exited;
  }
});

test('tunnel protocol 2: embeddings go through a node (the agent says version 2); an agent of version 1 keeps serving chat completions and is sent nothing else', async () => {
  const agent = runAgent(agentFile, agentArgs('emb-1', ['--models', 'fake-embed']), { TRIAD_PARTNER_SECRET: t.secret });
  const url = `${server.url.replace('http', 'ws')}/api/v1/node/connect`;
  const old = new WebSocket(url, { headers: { authorization: `Bearer ${t.secret}` } });
  const opened = new Promise((r) => old.once('open', r));
  try {
    await until(
      'the agent connected',
      async () => agent.output(),
      (o) => o.includes('connected to'),
    );
    const embed = (model: string) =>
      fetch(`${server.url}/api/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, input: ['through a node'] }),
      });
    const before = ((await (await fetch(`${fake.url.replace(/\/v1$/, '')}/__log`)).json()) as { embeddings: unknown[] }).embeddings.length;
    const res = await until(
      'the node serves fake-embed',
      () => embed('fake-embed'),
      (r) => r.status === 200,
    );
    expect(res.headers.get('x-triad-provider')).toBe('emb-1');
    const body = (await res.json()) as { data: { embedding: number[] }[]; model: string; usage: { prompt_tokens: number } };
    expect(body.model).toBe('fake-embed');
    expect(body.data[0]!.embedding).toHaveLength(8);
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    const after = ((await (await fetch(`${fake.url.replace(/\/v1$/, '')}/__log`)).json()) as { embeddings: unknown[] }).embeddings.length;
    expect(after).toBe(before + 1); // the model server behind the agent embedded it

    // An agent of protocol 1, spoken by hand: no version in its hello, so the welcome says 1.
    await opened;
    // Every frame from Triad, kept in order as it comes; next(t) takes the first of type t (waiting for it).
    const frames: Record<string, unknown>[] = [];
    let arrived = () => {};
    old.on('message', (data) => {
      frames.push(JSON.parse(data.toString()) as Record<string, unknown>);
      arrived();
    });
    const next = async (t: string): Promise<Record<string, unknown>> => {
      for (;;) {
        const at = frames.findIndex((f) => f.t === t);
        if (at >= 0) return frames.splice(at, 1)[0]!;
        await new Promise<void>((resolve) => (arrived = resolve));
      }
    };
    const welcome = next('welcome');
    old.send(
      JSON.stringify({ t: 'hello', node: 'old-1', models: ['old-model'], max_concurrency: 4, window: 65536, agent: 'triad-node/1' }),
    );
    expect(await welcome).toMatchObject({ t: 'welcome', version: 1 });
    // It serves a chat completion: an `open` with no path, the body, then its reply.
    const asked = fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'old-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const open = await next('open');
    expect(open).toEqual({ t: 'open', id: open.id });
    await next('end');
    const reply = {
      object: 'chat.completion',
      model: 'old-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'old but fine' }, finish_reason: 'stop' }],
    };
    old.send(JSON.stringify({ t: 'head', id: open.id, status: 200 }));
    old.send(JSON.stringify({ t: 'data', id: open.id, d: JSON.stringify(reply) }));
    old.send(JSON.stringify({ t: 'end', id: open.id }));
    const answered = await asked;
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('old but fine');
    // Embeddings of a model only it serves: refused with what to do, and nothing is sent down its tunnel.
    const refused = await embed('old-model');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('tunnel protocol 2');
    await sleep(200);
    expect(frames.filter((f) => f.t === 'open')).toEqual([]);
  } finally {
    old.terminate();
    agent.proc.kill('SIGKILL');
    await agent.exited;
  }
});

test('a node whose model server speaks the Responses and Messages APIs (--endpoints): requests of those pass through the tunnel as written', async () => {
  const agent = runAgent(agentFile, agentArgs('native-1', ['--models', 'fake-fixed', '--endpoints', 'responses,messages']), {
    TRIAD_PARTNER_SECRET: t.secret,
  });
  const log = async () =>
    (
      (await (await fetch(`${fake.url.replace(/\/v1$/, '')}/__log`)).json()) as {
        native: { path: string; anthropic_beta: string | null }[];
      }
    ).native;
  try {
    await until(
      'the agent connected',
      async () => agent.output(),
      (o) => o.includes('connected to'),
    );
    const before = (await log()).length;
    const post = (path: string, body: object, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const response = await until(
      'the node serves fake-fixed',
      () => post('/responses', { model: 'fake-fixed', input: 'through the tunnel' }),
      (r) => r.status === 200,
    );
    expect(response.headers.get('x-triad-provider')).toBe('native-1');
    expect(((await response.json()) as { output: { content: { text: string }[] }[] }).output[0]!.content[0]!.text).toBe(
      'native: through the tunnel',
    );
    const message = await post(
      '/messages',
      { model: 'fake-fixed', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'streamed through' }] },
      { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'test-beta-2026' },
    );
    expect(message.status).toBe(200);
    // Anthropic's events: `event:` and `data:` lines.
    const events = (await message.text())
      .split('\n\n')
      .flatMap((block) => block.split('\n').filter((l) => l.startsWith('data: ')))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: { text?: string } });
    expect(events.map((e) => e.type)).toContain('message_stop');
    expect(events.flatMap((e) => (e.type === 'content_block_delta' ? [e.delta!.text] : [])).join('')).toBe('native: streamed through');
    const seen = (await log()).slice(before);
    expect(seen.map((n) => n.path)).toEqual(['/v1/responses', '/v1/messages']);
    expect(seen[1]!.anthropic_beta).toBe('test-beta-2026'); // passed down the tunnel
  } finally {
    agent.proc.kill('SIGKILL');
    await agent.exited;
  }
});
