import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from '@playwright/test';
import { freshDatabase } from '../../lib/db/fresh-database';
import { runAdmin } from '../support/fixtures';
import { startFake } from '../support/providers';
import { freePort, freshDataDir, removeDataDirs, startServer } from '../support/server';

/*
 * Nodes that dial in, on a cluster (design §14): two instances on one PostgreSQL database; the node's
 * agent holds its tunnel on one; a request reaching the other is forwarded to the holder; the holder
 * killed, the agent (given both addresses) reconnects to the other and serves again within 10 s, and
 * no request hangs meanwhile.
 */
test.afterAll(removeDataDirs);
const base = process.env.TEST_DATABASE_URL;

test('two instances: a request on the other instance is forwarded to the tunnel; the holder killed, the agent serves through the other within 10 s', async () => {
  test.skip(!base, 'needs TEST_DATABASE_URL (a PostgreSQL server)');
  test.setTimeout(120_000);
  const fake = await startFake(await freePort());
  const db = await freshDatabase(base!, 'triad_tunnels');
  const env = { DATABASE_URL: db.url, TRIAD_SECRET_KEY: randomBytes(32).toString('hex'), TRIAD_DEMO: '0', TRIAD_PROVIDER_PROBE_S: '1' };
  const a = await startServer(freshDataDir(), env);
  const b = await startServer(freshDataDir(), env);
  let agent: ChildProcess | null = null;
  try {
    const admin = { ...env, TRIAD_DATA_DIR: a.dataDir };
    const { org_id, org_token } = await runAdmin(admin, ['org', 'create', '--name', 'Cluster']);
    const { api_key } = await runAdmin(admin, ['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
    const { partner_id, partner_secret } = await runAdmin(admin, ['partner', 'create', '--org', org_id!, '--name', 'Rack']);
    let output = '';
    agent = spawn(
      process.execPath,
      [
        path.resolve('.next/triad/triad-node.mjs'),
        ...['--server', `${a.url},${b.url}`, '--node', 'rack-1', '--upstream', fake.url, '--models', 'fake-echo', '--status-every', '0'],
      ],
      {
        env: { PATH: process.env.PATH, TRIAD_PARTNER_SECRET: partner_secret } as unknown as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    agent.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    await expect.poll(() => output, { timeout: 10_000 }).toContain(`connected to ${a.url}`);

    const ask = (url: string) =>
      fetch(`${url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake-echo', messages: [{ role: 'user', content: 'over there' }] }),
        signal: AbortSignal.timeout(10_000), // a request that hangs fails the test
      });
    // On the holder, and forwarded from the other instance (once it has read the tunnel's row).
    expect((await ask(a.url)).status).toBe(200);
    await expect.poll(async () => (await ask(b.url)).status, { timeout: 10_000 }).toBe(200);
    const viaB = await ask(b.url);
    expect(viaB.headers.get('x-triad-provider')).toBe('rack-1');
    expect(((await viaB.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: over there');
    // The console on the other instance knows the agent is connected (from the node's session).
    const tunnels = await fetch(`${b.url}/api/org/partners/${partner_id}/tunnels`, { headers: { authorization: `Bearer ${org_token}` } });
    const [seen] = ((await tunnels.json()) as { data: { partner_node_id: string; state: string; connected_since: string | null }[] }).data;
    expect(seen).toMatchObject({ partner_node_id: 'rack-1', state: 'up' });
    expect(seen!.connected_since).not.toBeNull();
    // A stream, forwarded.
    const streamed = await fetch(`${b.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-echo', stream: true, messages: [{ role: 'user', content: 'streamed over' }] }),
    });
    expect(await streamed.text()).toMatch(/"content":"over"[\s\S]*data: \[DONE\]/);

    // The holder dies: requests on the other instance never hang, and within 10 s they are served again.
    a.proc.kill('SIGKILL');
    const killed = Date.now();
    let servedAfter = 0;
    while (Date.now() - killed < 20_000) {
      const res = await ask(b.url);
      await res.arrayBuffer();
      if (res.status === 200) {
        servedAfter = Date.now() - killed;
        break;
      }
      expect([502, 503]).toContain(res.status);
      await sleep(100);
    }
    console.log(`tunnel cluster: served through the other instance ${servedAfter} ms after the holder's kill`);
    expect(servedAfter).toBeGreaterThan(0);
    expect(servedAfter).toBeLessThan(10_000);
    expect(output).toContain(`connected to ${b.url}`);
  } finally {
    agent?.kill('SIGKILL');
    await Promise.all([a.stop(), b.stop()]);
    await fake.kill();
    await db.drop();
  }
});
