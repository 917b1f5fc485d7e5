import { expect, signIn, test } from '../support/fixtures';

test('the API reference lists every group and sends a real request from "Try it"', async ({ page, org, request }) => {
  const doc = await (await request.get('/api/openapi.json')).json();
  expect(doc.openapi).toBe('3.1.0');
  await signIn(page, org.token, '/docs');
  for (const group of ['Chat', 'Partner statistics', 'Aliases', 'Operations'])
    await expect(page.getByRole('region', { name: group })).toBeVisible();
  const create = page.locator('details', { hasText: '/organization/api/v1/alias/create' });
  await create.locator('summary').click();
  await expect(create).toContainText('Auth: orgToken');
  await expect(create).toContainText('"expired_at"');
  await create
    .getByLabel('Request body')
    .fill(JSON.stringify({ type: 'live', name: 'from the docs', expired_at: Math.floor(Date.now() / 1000) + 3600 }));
  await create.getByRole('button', { name: 'Send POST' }).click();
  await expect(create.getByTestId('try-response')).toContainText('HTTP 201');
  await expect(create.getByTestId('try-response')).toContainText('"name": "from the docs"');
});

test('the API reference shows the node agents’ WebSocket with its frames, and offers the agent instead of "Try it"', async ({
  page,
  org,
}) => {
  await signIn(page, org.token, '/docs');
  const connect = page.locator('details', { hasText: '/api/v1/node/connect' });
  await connect.locator('summary').click();
  await expect(connect).toContainText('Auth: partnerSecret');
  await expect(connect).toContainText('101');
  await expect(connect).toContainText('WebSocket frames (triad-tunnel.v2');
  await expect(connect).toContainText('"max_concurrency"');
  await expect(connect.getByRole('button', { name: /^Send/ })).toHaveCount(0);
  await expect(connect.getByRole('link', { name: 'triad-node.mjs' })).toHaveAttribute('href', '/downloads/triad-node.mjs');
});
