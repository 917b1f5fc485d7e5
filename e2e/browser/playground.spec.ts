import { UPSTREAM_URL } from '../../scripts/lib/test-env.mjs';
import { expect, signIn, test } from '../support/fixtures';

test('playground: a reply streams in with its stats; a slow one is stopped; regenerate; errors are explained', async ({
  page,
  admin,
  org,
}) => {
  // The playground's key (made at its first message otherwise), with room for this test's requests.
  await admin(['apikey', 'create', '--org', org.id, '--rpm', '100', '--label', 'Console playground']);
  await signIn(page, org.token, '/playground');

  const model = page.getByLabel('Model');
  await expect(model.locator('option')).toContainText(['triad-guide', 'fake-echo', 'fake-slow']);

  // Shift+Enter adds a line; Enter sends.
  const box = page.getByLabel('Message');
  await box.fill('How do aliases expire?');
  await box.press('Shift+Enter');
  await expect(box).toHaveValue('How do aliases expire?\n');
  await box.press('Enter');
  await expect(page.getByTestId('turn-user')).toHaveText('How do aliases expire?');
  const reply = page.getByTestId('turn-assistant').last();
  await expect(reply).toContainText('not a language model');
  await expect(reply.getByRole('heading').first()).toBeVisible(); // Markdown rendered
  const stats = reply.getByTestId('reply-stats');
  await expect(stats).toContainText(/first token \d+ ms · [\d.]+ tokens\/s · \d+ prompt \+ \d+ completion tokens/);
  const firstReply = await reply.locator('.prose-chat').textContent();
  const firstStats = await stats.textContent();

  // Regenerate replaces the last reply with a new one (same question, same deterministic answer).
  await page.getByRole('button', { name: 'Regenerate', exact: true }).click();
  await expect(page.getByTestId('turn-assistant')).toHaveCount(1);
  await expect(stats).not.toHaveText(firstStats!);
  await expect(stats).toContainText('completion tokens');
  expect(await reply.locator('.prose-chat').textContent()).toBe(firstReply);

  // A slow upstream model: stop it with Esc while it streams.
  await model.selectOption('fake-slow');
  const marker = `stop-me-${Date.now()}`;
  await box.fill(marker);
  await box.press('Enter');
  const slow = page.getByTestId('turn-assistant').last();
  await expect(slow).toContainText('w2');
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(slow.getByTestId('reply-stats')).toContainText('stopped');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeVisible();
  expect(await slow.textContent()).not.toContain('w59');
  await expect
    .poll(async () => ((await (await fetch(`${UPSTREAM_URL.replace('/v1', '')}/__log`)).json()) as { aborted: string[] }).aborted)
    .toContain(marker);

  // An upstream failure is explained, and the conversation goes on.
  await model.selectOption('fake-error-500');
  await box.fill('break please');
  await box.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'The model server failed' })).toContainText('the model crashed');
  await model.selectOption('fake-echo');
  await box.fill('still here?');
  await box.press('Enter');
  await expect(page.getByTestId('turn-assistant').last()).toContainText('Echo: still here?');
});

test('playground: the rate limit of its key and an ended session are explained', async ({ page, admin, org }) => {
  await admin(['apikey', 'create', '--org', org.id, '--rpm', '2', '--label', 'Console playground']);
  const { org_token } = await admin(['token', 'create', '--org', org.id]);
  await signIn(page, org_token!, '/playground');
  const box = page.getByLabel('Message');
  // The model list used one request of the two a minute; one message uses the second.
  await expect(page.getByLabel('Model').locator('option')).toContainText(['triad-guide']);
  await box.fill('one');
  await box.press('Enter');
  await expect(page.getByTestId('turn-assistant').last().getByTestId('reply-stats')).toBeVisible();
  await box.fill('two');
  await box.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'Rate limit' })).toContainText(
    /Rate limit reached for the playground's API key\. Retry in \d+ s\./,
  );

  // The token the session was made with is revoked: the next message says the session has ended.
  await admin(['token', 'revoke', '--token', org_token!]);
  await box.fill('three');
  await box.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'The session has ended' })).toBeVisible();
  await page.reload();
  await expect(page.getByText("This page needs an organization's session")).toBeVisible();
});
