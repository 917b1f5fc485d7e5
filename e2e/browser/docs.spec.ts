import { expect, signIn, test } from '../support/fixtures';

/*
 * The API reference: the OpenAPI document rendered by Scalar (design §19). What a reader needs is on
 * the page (each operation's body with an example, each error with its meaning and an example), and
 * the page asks nothing of any other origin.
 */
test('the API reference renders every group, bodies with examples and errors with their meanings, from this origin only', async ({
  page,
  org,
  request,
}) => {
  const doc = await (await request.get('/api/openapi.json')).json();
  expect(doc.openapi).toBe('3.1.0');
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const elsewhere: string[] = [];
  const failures: string[] = [];
  page.on('request', (r) => void (!r.url().startsWith(origin) && !r.url().startsWith('data:') && elsewhere.push(r.url())));
  page.on('console', (m) => void (m.type() === 'error' && failures.push(m.text())));
  await signIn(page, org.token, '/docs');

  const reference = page.getByTestId('api-reference');
  for (const group of ['Chat', 'Responses', 'Messages', 'Partner statistics', 'Aliases', 'Operations'])
    await expect(reference.getByText(group, { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  // The intro is Markdown, rendered: no backticks left.
  await expect(reference.getByText('Chat completions, partner node statistics and aliases.').first()).toBeVisible();
  expect(await reference.innerText()).not.toContain('`{error');

  // The chat completion: its example body and the meaning of an error.
  await page.goto('/docs#tag/chat/POST/api/v1/chat/completions');
  await expect(reference.getByText('How do aliases expire?').first()).toBeVisible({ timeout: 20_000 });
  await expect(reference.getByText(/The request is not valid: a field is missing/).first()).toBeAttached();
  await expect(reference.getByText(/Over the key's or the address's rate/).first()).toBeAttached();

  // The node agents' WebSocket points at the agent to download.
  await page.goto('/docs#tag/partner-statistics/GET/api/v1/node/connect');
  await expect(reference.getByRole('link', { name: 'triad-node.mjs' }).first()).toHaveAttribute('href', '/downloads/triad-node.mjs');

  expect(elsewhere).toEqual([]);
  expect(failures.filter((f) => /Content Security Policy|Refused to/.test(f))).toEqual([]);
});
