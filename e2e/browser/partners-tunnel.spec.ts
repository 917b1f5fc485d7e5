import { spawn } from 'node:child_process';
import path from 'node:path';
import { UPSTREAM_URL } from '../../scripts/lib/test-env.mjs';
import { expect, rememberSecrets, signIn, test } from '../support/fixtures';

/*
 * The Partners page for nodes that dial in (design §18): a node agent connected to this server (the
 * bundled agent, as a partner runs it) shows its live state on its row; "Connect" shows the exact
 * commands for this server.
 */
test('partners: a node agent connected shows its state on its row; Connect shows the commands for this server', async ({
  page,
  admin,
  org,
}) => {
  const partner = await admin(['partner', 'create', '--org', org.id, '--name', 'Home lab']);
  rememberSecrets([partner.partner_secret!]);
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const agent = spawn(
    process.execPath,
    [
      path.resolve('.next/triad/triad-node.mjs'),
      '--server',
      origin,
      '--node',
      'attic-gpu',
      '--upstream',
      UPSTREAM_URL,
      '--models',
      'fake-echo',
    ],
    { env: { PATH: process.env.PATH, TRIAD_PARTNER_SECRET: partner.partner_secret } as unknown as NodeJS.ProcessEnv, stdio: 'ignore' },
  );
  try {
    await signIn(page, org.token, '/partners');
    await page.getByRole('button', { name: 'Nodes of Home lab' }).click();
    const nodes = page.getByRole('region', { name: 'Nodes of Home lab' });
    // The agent registered the node on its own, and its row says it is connected.
    await expect(nodes.getByText('attic-gpu', { exact: true }).first()).toBeVisible({ timeout: 15_000 });
    await expect(nodes.getByTestId('tunnel-state')).toContainText(
      /agent connected since .+ · 1 model\(s\) · 0 in flight · 0 served today/,
      {
        timeout: 15_000,
      },
    );
    await nodes.getByRole('button', { name: 'Connect attic-gpu' }).click();
    const commands = nodes.getByTestId('connect-commands');
    await expect(commands).toContainText(`curl -fO ${origin}/downloads/triad-node.mjs`);
    await expect(commands).toContainText(`node triad-node.mjs --server ${origin} --node attic-gpu --upstream`);
    // The command's download works.
    expect((await page.request.get(`${origin}/downloads/triad-node.mjs`)).status()).toBe(200);

    // The node's statistics page says the same, with the same commands.
    await page.goto('/stats/attic-gpu');
    const panel = page.getByRole('region', { name: 'Node agent' });
    await expect(panel.getByTestId('tunnel-state')).toContainText('agent connected since');
    await expect(panel.getByTestId('connect-commands')).toContainText(`--node attic-gpu`);
    await page.goto('/partners');
    await page.getByRole('button', { name: 'Nodes of Home lab' }).click();

    agent.kill('SIGTERM');
    await expect(nodes.getByTestId('tunnel-state')).toContainText('agent not connected', { timeout: 15_000 });
  } finally {
    agent.kill('SIGKILL');
  }
});
