import { spawn } from 'node:child_process';
import path from 'node:path';
import { UPSTREAM_URL } from '../../scripts/lib/test-env.mjs';
import { expect, rememberSecrets, signIn, test } from '../support/fixtures';

/*
 * The Partners page for nodes that dial in (design §14): a node agent connected to this server (the
 * bundled agent, as a partner runs it) shows its live state on its row; "Connect" shows the exact
 * commands for this server; it is private until the administrator admits it on the Providers page, and
 * the organization can refuse network nodes on its Keys page.
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
    // Private (design §20): it serves this organization only, until the administrator admits it.
    await page.goto('/partners');
    await page.getByRole('button', { name: 'Nodes of Home lab' }).click();
    await expect(nodes.getByTestId('node-network')).toHaveText('private');

    // The administrator, on the Providers page, sees whose node it is and admits it to the network.
    const { admin_token } = await admin(['admin-token', 'create']);
    const adminPage = await page.context().browser()!.newPage({ baseURL: origin });
    try {
      await signIn(adminPage, admin_token as string, '/providers');
      const network = adminPage.getByTestId('network-attic-gpu');
      await expect(network).toContainText(`Private: org for ${test.info().title}`.slice(0, 60));
      await adminPage.getByRole('button', { name: 'Admit attic-gpu' }).click();
      await expect(network).toContainText(/Network\s*admitted by session:\S+ /);
      await adminPage.goto('/audit');
      await expect(
        adminPage
          .getByRole('table', { name: 'Audit log' })
          .getByRole('row')
          .filter({ hasText: `node:${partner.partner_id}/attic-gpu` }),
      ).toContainText('node.admit');
      await page.reload();
      await page.getByRole('button', { name: 'Nodes of Home lab' }).click();
      await expect(nodes.getByTestId('node-network')).toHaveText('network');
      // The partner's statistics say it too.
      await page.goto('/stats');
      await expect(page.getByRole('row', { name: /attic-gpu/ }).getByTestId('node-network')).toHaveText('network');
      // And makes it private again.
      await adminPage.goto('/providers');
      await adminPage.getByRole('button', { name: 'Revoke attic-gpu' }).click();
      await expect(adminPage.getByTestId('network-attic-gpu')).toContainText('Private:');
    } finally {
      await adminPage.close();
    }

    // The organization refuses network nodes on its Keys page; the choice holds after a reload.
    await page.goto('/keys');
    const allow = page.getByLabel("Allow nodes admitted to the network to serve this organization's completions");
    await expect(allow).toBeChecked();
    await allow.uncheck();
    await expect(allow).not.toBeChecked();
    await page.reload();
    await expect(allow).not.toBeChecked();
    await page.goto('/partners');
    await page.getByRole('button', { name: 'Nodes of Home lab' }).click();

    agent.kill('SIGTERM');
    await expect(nodes.getByTestId('tunnel-state')).toContainText('agent not connected', { timeout: 15_000 });
  } finally {
    agent.kill('SIGKILL');
  }
});
