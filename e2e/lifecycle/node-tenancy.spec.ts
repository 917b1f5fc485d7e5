import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { readAdminSecret } from '../../lib/auth/admin-secret';
import { freshDatabase } from '../../lib/db/fresh-database';
import { runAdmin, runAdminRaw } from '../support/fixtures';
import { adminApi, chat, type FakeServer, startFake } from '../support/providers';
import { freePort, freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * Node tenancy (design §20), as a tenant would meet it: on one Triad, organization B's partner runs the
 * node agent on its own machine and announces a model; organization A asks for that model with its
 * own key. B's node is private: A's prompt never reaches it until an administrator admits the node (or
 * its partner) to the network; a revocation holds from the next request while a stream in flight
 * finishes; an organization may refuse network nodes altogether; the model list follows. The agent is
 * the file partners download, the model server a fake on a real socket that logs what it was sent.
 */
test.afterAll(removeDataDirs);
test.describe.configure({ mode: 'serial' });

type Tenant = { orgId: string; orgToken: string; apiKey: string; partnerId: string; secret: string };
async function tenant(env: Record<string, string>, name: string): Promise<Tenant> {
  const { org_id, org_token } = await runAdmin(env, ['org', 'create', '--name', name]);
  const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
  const { partner_id, partner_secret } = await runAdmin(env, ['partner', 'create', '--org', org_id!, '--name', `${name} rack`]);
  return { orgId: org_id!, orgToken: org_token!, apiKey: api_key!, partnerId: partner_id!, secret: partner_secret! };
}

/** The node agent as a partner runs it, against one or more Triad addresses; resolves once it is connected. */
async function startAgent(servers: string, fake: FakeServer, t: Tenant, node: string, models: string): Promise<ChildProcess> {
  let output = '';
  const agent = spawn(
    process.execPath,
    [
      path.resolve('.next/triad/triad-node.mjs'),
      ...['--server', servers, '--node', node, '--upstream', fake.url, '--models', models, '--status-every', '0'],
    ],
    { env: { PATH: process.env.PATH, TRIAD_PARTNER_SECRET: t.secret } as unknown as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  agent.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  agent.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await expect.poll(() => output, { timeout: 15_000 }).toContain('connected to');
  return agent;
}

const modelIds = async (url: string, apiKey: string) => {
  const res = await fetch(`${url}/api/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id);
};
/** The prompts the model server behind the agent received. */
const promptsSeen = async (fake: FakeServer) => {
  const log = (await (await fetch(`http://127.0.0.1:${fake.port}/__log`)).json()) as { raw: string[] };
  return log.raw.join('\n');
};
const nodeOf = async (url: string, t: Tenant, id: string) => {
  const res = await fetch(`${url}/api/v1/partner/nodes?secret=${t.secret}&limit=100`, {
    headers: { authorization: `Bearer ${t.orgToken}` },
  });
  const body = (await res.json()) as { data: { entries: { external_id: string; unit_shared: string; network: string }[] } };
  return body.data.entries.find((e) => e.external_id === id)!;
};
/** What an unknown model answers, with the name replaced: the reply for a model another organization's private node serves must be the same. */
const asUnknown = (body: unknown, model: string) => JSON.parse(JSON.stringify(body).replaceAll(model, 'MODEL')) as unknown;

test.describe('one instance', () => {
  let server: RunningServer;
  let fake: FakeServer;
  let env: Record<string, string>;
  let a: Tenant;
  let b: Tenant;
  const agents: ChildProcess[] = [];

  test.beforeAll(async () => {
    fake = await startFake(await freePort());
    const dataDir = freshDataDir();
    server = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_PROVIDER_PROBE_S: '1', TRIAD_TUNNEL_PRICE_PER_1K: '0.002' });
    env = { TRIAD_DATA_DIR: dataDir };
    a = await tenant(env, 'Tenant A');
    b = await tenant(env, 'Tenant B');
    agents.push(await startAgent(server.url, fake, b, 'b-node-1', 'fake-echo,fake-slow'));
    agents.push(await startAgent(server.url, fake, a, 'a-node-1', 'fake-agent'));
    await expect.poll(() => modelIds(server.url, b.apiKey), { timeout: 10_000 }).toContain('fake-echo');
    await expect.poll(() => modelIds(server.url, a.apiKey), { timeout: 10_000 }).toContain('fake-agent');
  });
  test.afterAll(async () => {
    for (const agent of agents) agent.kill('SIGKILL');
    await server?.stop();
    await fake?.kill();
  });

  test("B's private node never receives A's prompt: A is told the model does not exist, and the node earns nothing from A", async () => {
    const before = await nodeOf(server.url, b, 'b-node-1');
    expect(before.network).toBe('private');

    for (const stream of [false, true]) {
      const refused = await chat(server, a.apiKey, 'fake-echo', { stream, content: `A's confidential prompt ${stream}` });
      const unknown = await chat(server, a.apiKey, 'no-such-model', { stream });
      expect(refused.status).toBe(404);
      expect(refused.provider).toBeNull();
      expect(asUnknown(refused.body, 'fake-echo')).toEqual(asUnknown(unknown.body, 'no-such-model'));
      expect(refused.body).toMatchObject({ error: { code: 'model_not_found' } });
    }
    expect(await promptsSeen(fake)).not.toContain("A's confidential prompt");
    // Not in A's model list; B's lists it, and A's own node's model is in A's list only.
    const listA = await modelIds(server.url, a.apiKey);
    const listB = await modelIds(server.url, b.apiKey);
    expect(listA).not.toContain('fake-echo');
    expect(listA).not.toContain('fake-slow');
    expect(listB).toEqual(expect.arrayContaining(['fake-echo', 'fake-slow']));
    expect(listB).not.toContain('fake-agent');
    expect(listA).toContain('triad-guide');
    const retrieve = (key: string) => fetch(`${server.url}/api/v1/models/fake-echo`, { headers: { authorization: `Bearer ${key}` } });
    expect((await retrieve(a.apiKey)).status).toBe(404);
    expect((await retrieve(b.apiKey)).status).toBe(200);

    // B's own completions are served by its node; A's by its own.
    const own = await chat(server, b.apiKey, 'fake-echo', { content: "B's own prompt" });
    expect(own).toMatchObject({ status: 200, provider: 'b-node-1' });
    expect((await chat(server, a.apiKey, 'fake-agent', { content: 'to my own node' })).provider).toBe('a-node-1');
    expect((await chat(server, b.apiKey, 'fake-agent')).status).toBe(404);

    // It earned from B's completion only (A's were never sent to it).
    await expect
      .poll(async () => Number((await nodeOf(server.url, b, 'b-node-1')).unit_shared), { timeout: 5000 })
      .toBeGreaterThan(Number(before.unit_shared));
    const { body: providers } = await adminApi(server, 'GET', '/providers');
    const tunnel = (providers.data as unknown as { name: string; tenancy: unknown }[]).find((p) => p.name === 'b-node-1');
    expect(tunnel?.tenancy).toEqual({ org_id: b.orgId, network: 'private', admitted_at: null, admitted_by: null, admitted_as: null });
    const tunnels = await fetch(`${server.url}/api/org/partners/${b.partnerId}/tunnels`, {
      headers: { authorization: `Bearer ${b.orgToken}` },
    });
    expect(((await tunnels.json()) as { data: { network: string }[] }).data).toEqual([expect.objectContaining({ network: 'private' })]);
  });

  test('an administrator admits the node: A is served by it; revoked, the next request is refused while a stream in flight finishes', async () => {
    const admitted = await runAdmin(env, ['node', 'admit', '--partner', b.partnerId, '--node', 'b-node-1']);
    expect(admitted).toMatchObject({ partner_id: b.partnerId, partner_node_id: 'b-node-1', org_id: b.orgId, network: 'admitted' });
    expect(admitted.admitted_by).toBe('admin_cli');
    const served = await chat(server, a.apiKey, 'fake-echo', { content: 'now on the network' });
    expect(served).toMatchObject({ status: 200, provider: 'b-node-1' });
    expect(await modelIds(server.url, a.apiKey)).toContain('fake-echo');
    expect((await nodeOf(server.url, b, 'b-node-1')).network).toBe('admitted');
    const { body: providers } = await adminApi(server, 'GET', '/providers');
    const tunnel = (providers.data as unknown as { name: string; tenancy: Record<string, unknown> }[]).find((p) => p.name === 'b-node-1')!;
    expect(tunnel.tenancy).toMatchObject({ network: 'admitted', admitted_by: 'admin_cli', admitted_as: 'node' });
    expect(Date.parse(tunnel.tenancy.admitted_at as string)).toBeGreaterThan(Date.now() - 60_000);

    // A long stream for A is under way when the node is revoked through the admin API.
    const streaming = chat(server, a.apiKey, 'fake-slow', { stream: true, content: 'in flight' });
    await expect.poll(async () => (await promptsSeen(fake)).includes('in flight'), { timeout: 5000 }).toBe(true);
    const revoked = await adminApi(server, 'POST', '/nodes/revoke', { partner_id: b.partnerId, partner_node_id: 'b-node-1' });
    expect(revoked).toMatchObject({ status: 200, body: { data: { network: 'private', admitted_at: null, admitted_by: null } } });
    expect((await chat(server, a.apiKey, 'fake-echo', { content: 'after the revocation' })).status).toBe(404);
    expect(await promptsSeen(fake)).not.toContain('after the revocation');
    const finished = await streaming;
    expect(finished).toMatchObject({ status: 200, provider: 'b-node-1', done: true, error: false });
    expect(finished.text.trim().split(' ')).toHaveLength(60); // every word of fake-slow's reply, to the last
    expect(finished.text.trim().split(' ').at(-1)).toBe('w59');

    // Both are in the audit log, with who did them.
    const audit = await fetch(`${server.url}/api/instance/audit`, {
      headers: { authorization: `Bearer ${readAdminSecret(server.dataDir)}` },
    });
    const actions = ((await audit.json()) as { data: { action: string; org_id: string | null; actor: string }[] }).data;
    expect(actions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'node.admit', org_id: b.orgId, actor: 'admin_cli' }),
        expect.objectContaining({ action: 'node.revoke', org_id: b.orgId }),
      ]),
    );
  });

  test('a whole partner admitted: its nodes serve the network; one node alone cannot be revoked from it; bad input is a clear 4xx', async () => {
    expect((await adminApi(server, 'POST', '/nodes/admit', { partner_id: b.partnerId })).body.data).toMatchObject({
      partner_node_id: null,
      network: 'admitted',
    });
    expect((await chat(server, a.apiKey, 'fake-echo')).provider).toBe('b-node-1');
    const alone = await adminApi(server, 'POST', '/nodes/revoke', { partner_id: b.partnerId, partner_node_id: 'b-node-1' });
    expect(alone.status).toBe(409);
    expect(alone.body.error?.detail).toContain('admitted as a whole');
    expect((await chat(server, a.apiKey, 'fake-echo')).status).toBe(200);
    const cli = await runAdminRaw(env, ['node', 'revoke', '--partner', b.partnerId]);
    expect(cli.code).toBe(0);
    expect((await chat(server, a.apiKey, 'fake-echo')).status).toBe(404);

    expect((await adminApi(server, 'POST', '/nodes/admit', { partner_id: 'no-such-partner' })).status).toBe(404);
    expect((await adminApi(server, 'POST', '/nodes/admit', { partner_id: b.partnerId, partner_node_id: 'nope' })).status).toBe(404);
    expect((await adminApi(server, 'POST', '/nodes/admit', { partner: b.partnerId })).status).toBe(400);
    const missing = await runAdminRaw(env, ['node', 'admit']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('partner');
    // Only an administrator admits: an organization's token is refused.
    const byTenant = await fetch(`${server.url}/api/admin/nodes/admit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${b.orgToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ partner_id: b.partnerId }),
    });
    expect(byTenant.status).toBe(401);
    expect((await chat(server, a.apiKey, 'fake-echo')).status).toBe(404);
  });

  test("an organization that refuses network nodes is served by the administrator's providers and its own nodes only", async () => {
    await runAdmin(env, ['node', 'admit', '--partner', b.partnerId, '--node', 'b-node-1']);
    await runAdmin(env, ['provider', 'add', '--name', 'by-url', '--base-url', fake.url, '--models', 'fake-instant']);
    const settings = (method: string, body?: unknown) =>
      fetch(`${server.url}/api/org/settings`, {
        method,
        headers: { authorization: `Bearer ${a.orgToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect(await (await settings('GET')).json()).toEqual({ data: { network_nodes: true, budget: null } });
    expect((await chat(server, a.apiKey, 'fake-echo')).provider).toBe('b-node-1');

    expect(await (await settings('PATCH', { network_nodes: false })).json()).toEqual({ data: { network_nodes: false, budget: null } });
    expect((await chat(server, a.apiKey, 'fake-echo', { content: 'refused network' })).status).toBe(404);
    expect(await promptsSeen(fake)).not.toContain('refused network');
    const list = await modelIds(server.url, a.apiKey);
    expect(list).not.toContain('fake-echo');
    expect(list).toEqual(expect.arrayContaining(['fake-agent', 'fake-instant']));
    expect((await chat(server, a.apiKey, 'fake-agent')).provider).toBe('a-node-1');
    expect((await chat(server, a.apiKey, 'fake-instant')).provider).toBe('by-url');
    // B, which did not refuse, is unaffected.
    expect((await chat(server, b.apiKey, 'fake-echo')).provider).toBe('b-node-1');

    const bad = await settings('PATCH', { network_nodes: 'no' });
    expect(bad.status).toBe(400);
    expect(await (await settings('GET')).json()).toEqual({ data: { network_nodes: false, budget: null } });
    await settings('PATCH', { network_nodes: true });
    expect((await chat(server, a.apiKey, 'fake-echo')).provider).toBe('b-node-1');
    await runAdmin(env, ['node', 'revoke', '--partner', b.partnerId, '--node', 'b-node-1']);
  });
});

test("two instances: B's private node held by one instance never receives A's prompt sent to the other; a revocation there holds from the next request", async () => {
  const base = process.env.TEST_DATABASE_URL;
  test.skip(!base, 'needs TEST_DATABASE_URL (a PostgreSQL server)');
  test.setTimeout(120_000);
  const fake = await startFake(await freePort());
  const db = await freshDatabase(base!, 'triad_tenancy');
  const env = { DATABASE_URL: db.url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex'), TRIAD_DEMO: '0', TRIAD_PROVIDER_PROBE_S: '1' };
  const one = await startServer(freshDataDir(), env);
  const two = await startServer(freshDataDir(), env);
  let agent: ChildProcess | null = null;
  try {
    const admin = { ...env, TRIAD_DATA_DIR: one.dataDir };
    const a = await tenant(admin, 'Tenant A');
    const b = await tenant(admin, 'Tenant B');
    // B's node dials in to the second instance only.
    agent = await startAgent(two.url, fake, b, 'b-node-1', 'fake-echo');
    await expect.poll(async () => (await chat(one, b.apiKey, 'fake-echo')).provider, { timeout: 10_000 }).toBe('b-node-1');

    const refused = await chat(one, a.apiKey, 'fake-echo', { content: "A's prompt on the other instance" });
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ error: { code: 'model_not_found' } });
    expect(await modelIds(one.url, a.apiKey)).not.toContain('fake-echo');
    expect(await promptsSeen(fake)).not.toContain("A's prompt on the other instance");

    // Admitted (the CLI writes the database itself on PostgreSQL): served through the holder, once read.
    await runAdmin(admin, ['node', 'admit', '--partner', b.partnerId, '--node', 'b-node-1']);
    await expect.poll(async () => (await chat(one, a.apiKey, 'fake-echo')).provider, { timeout: 10_000 }).toBe('b-node-1');
    // Revoked by another process: the very next request is refused, though this instance read the admission moments ago.
    await runAdmin(admin, ['node', 'revoke', '--partner', b.partnerId, '--node', 'b-node-1']);
    const next = await chat(one, a.apiKey, 'fake-echo', { content: 'right after the revocation' });
    expect(next.status).toBe(404);
    expect(next.body).toMatchObject({ error: { code: 'model_not_found' } });
    expect(await promptsSeen(fake)).not.toContain('right after the revocation');
    expect((await chat(one, b.apiKey, 'fake-echo')).provider).toBe('b-node-1');
  } finally {
    agent?.kill('SIGKILL');
    await Promise.all([one.stop(), two.stop()]);
    await fake.kill();
    await db.drop();
  }
});
