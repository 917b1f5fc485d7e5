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

const DOT_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

test('playground: a tool call shown and answered by hand, a JSON schema reply, an image; copy as curl carries all of it', async ({
  page,
  context,
  admin,
  org,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await admin(['apikey', 'create', '--org', org.id, '--rpm', '100', '--label', 'Console playground']);
  await signIn(page, org.token, '/playground');
  await page.getByLabel('Model').selectOption('fake-agent');
  const box = page.getByLabel('Message');

  // A tool defined as a JSON schema; the model calls it; the result is typed by hand and goes back as a tool message.
  await page.getByLabel('Offer tools').check();
  await expect(page.getByLabel('Tool parameters (JSON schema)')).toHaveValue(/"city"/);
  await box.fill('Weather in Paris?');
  await box.press('Enter');
  const call = page.getByTestId('tool-call');
  await expect(call).toContainText('Tool call get_weather');
  await expect(call).toContainText('"city": "city"');
  await expect(page.getByTestId('reply-stats')).toContainText('waiting for tool results');
  await page.getByLabel('Result of get_weather').fill('sunny, 21 °C');
  await page.getByRole('button', { name: 'Send result' }).click();
  await expect(page.getByTestId('turn-tool')).toContainText('Result of get_weather: sunny, 21 °C');
  await expect(page.getByTestId('turn-assistant').last()).toContainText('Tool said: sunny, 21 °C');
  await page.getByRole('button', { name: 'Copy as curl', exact: true }).click();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  for (const part of ['"tools"', '"get_weather"', '"tool_calls"', '"role": "tool"', '"tool_call_id"', 'sunny, 21 °C'])
    expect(curl, part).toContain(part);

  // A reply in a JSON schema.
  await page.getByLabel('Offer tools').uncheck();
  await page.getByLabel('Response format').selectOption('json_schema');
  await box.fill('Answer as JSON');
  await box.press('Enter');
  await expect(page.getByTestId('turn-assistant').last()).toContainText('{"answer":"answer"}');

  // An image for a model that sees (over 5 MB is refused before sending).
  await page.getByLabel('Response format').selectOption('text');
  await page
    .getByLabel('Attach an image')
    .setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(5 * 1024 * 1024 + 1) });
  await expect(page.getByRole('alert').filter({ hasText: 'larger than 5 MB' })).toBeVisible();
  await page.getByLabel('Attach an image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: DOT_PNG });
  await expect(page.getByTestId('attached-image')).toHaveCount(1);
  await box.fill('What is this?');
  await box.press('Enter');
  await expect(page.getByTestId('turn-user').last().getByRole('img')).toBeVisible();
  await expect(page.getByTestId('turn-assistant').last()).toContainText('I see 1 image(s): data:image/png;base64');
  await page.getByRole('button', { name: 'Copy as curl', exact: true }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
    `"url": "data:image/png;base64,${DOT_PNG.toString('base64')}"`,
  );

  // triad-guide cannot call tools: the refusal is explained, not answered as plain text.
  await page.getByLabel('Model').selectOption('triad-guide');
  await page.getByLabel('Offer tools').check();
  await box.fill('Weather?');
  await box.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'triad-guide cannot serve `tools`' })).toBeVisible();
});

test('playground: routing preferences — a provider that serves nothing is explained; a named one serves', async ({ page, admin, org }) => {
  await admin(['apikey', 'create', '--org', org.id, '--rpm', '100', '--label', 'Console playground']);
  await signIn(page, org.token, '/playground');
  await page.getByLabel('Model').selectOption('fake-echo');
  await page.getByText('Routing', { exact: true }).click();
  await page.getByLabel('Only these providers').fill('elsewhere');
  const box = page.getByLabel('Message');
  await box.fill('route me');
  await box.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'provider.only' })).toContainText(
    'No provider of `fake-echo` is left by provider.only',
  );

  // The only provider of fake-echo is `default`: named, it serves; the reply says who.
  await page.getByLabel('Only these providers').fill('default');
  await page.getByLabel('Prefer').selectOption('price');
  await box.fill('route me again');
  await box.press('Enter');
  const reply = page.getByTestId('turn-assistant').last();
  await expect(reply).toContainText('Echo: route me again');
  await expect(reply.getByTestId('reply-provider')).toContainText('default');
});
