import { expect, signIn, test } from '../support/fixtures';

test('alias manager: create with a JWT secret, generate a token, try it, then delete', async ({ page, org }) => {
  await signIn(page, org.token, '/aliases');
  await expect(page.getByText('No aliases yet')).toBeVisible();

  // The form checks input with the server's schema before sending it.
  await page.getByRole('button', { name: 'New alias' }).click();
  const form = page.getByRole('dialog', { name: 'New alias' });
  await form.getByLabel('Name').fill('Launch stream');
  await form.getByLabel(/JWT secret/).fill('too-short');
  await form.getByRole('button', { name: 'Create alias' }).click();
  await expect(form.getByRole('alert')).toContainText('must be at least 32 bytes');

  // Generate a proper secret and a stream key; create.
  await form.getByLabel(/JWT secret/).fill('');
  await form.locator('label', { hasText: 'JWT secret' }).getByRole('button', { name: 'Generate' }).click();
  await expect(form.getByLabel(/JWT secret/)).toHaveValue(/^[A-Za-z0-9_-]{43}$/);
  await form.locator('label', { hasText: 'Stream key' }).getByRole('button', { name: 'Generate' }).click();
  await form.getByRole('button', { name: 'Create alias' }).click();

  // The details open on the new alias; secrets are masked until revealed.
  const details = page.getByRole('dialog', { name: 'Launch stream' });
  await expect(details).toBeVisible();
  await expect(details.getByTestId('secret-jwt_secret')).toHaveText(/^•+$/);
  await details.getByRole('button', { name: 'Reveal jwt_secret' }).click();
  await expect(details.getByTestId('secret-jwt_secret')).toHaveText(/^[A-Za-z0-9_-]{43}$/);

  // Sign a host token in the browser and use it.
  await details.getByLabel('user_id').fill('alice');
  await details.getByLabel(/host/).check();
  await details.getByRole('button', { name: '5 min' }).click();
  await details.getByRole('button', { name: 'Generate token' }).click();
  const token = await details.getByTestId('jwt-token').textContent();
  expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
  await expect(details.getByLabel('Decoded header')).toContainText('"alg": "HS256"');
  await expect(details.getByLabel('Decoded payload')).toContainText('"user_id": "alice"');
  await expect(details.getByLabel('Decoded payload')).toContainText('"expires_in": 300');
  await details.getByRole('button', { name: 'Try it' }).click();
  await expect(details.getByTestId('try-result')).toContainText('HTTP 200');
  await expect(details.getByTestId('try-result')).toContainText('"stream_key": "'); // host: true sees the stream key
  await expect(details.getByTestId('try-result')).toContainText('"jwt_secret": null');

  // The same token works from outside the browser too.
  const aliasId = (await details.locator('dd code').first().textContent())!;
  const res = await page.request.get(`/organization/api/v1/alias/${aliasId}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(200);
  await details.getByRole('button', { name: 'Close' }).click();

  // Listed; tabs filter by type; delete asks first and then the alias is gone.
  const row = page.getByTestId(`alias-row-${aliasId}`);
  await expect(row).toContainText('Launch stream');
  await expect(row).toContainText(/expires in (23|24) h/);
  await page.getByRole('tab', { name: 'Conference' }).click();
  await expect(row).toBeHidden();
  await page.getByRole('tab', { name: 'Live' }).click();
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog', { name: 'Delete alias?' }).getByRole('button', { name: 'Delete permanently' }).click();
  await expect(row).toBeHidden();
  const gone = await page.request.get(`/organization/api/v1/alias/${aliasId}`, { headers: { authorization: `Bearer ${org.token}` } });
  expect(gone.status()).toBe(400);
});

test('alias manager: edit clears a passcode; search finds by name', async ({ page, org, request }) => {
  const mk = (name: string, extra: object = {}) =>
    request.post('/organization/api/v1/alias/create', {
      headers: { authorization: `Bearer ${org.token}` },
      data: { type: 'conference', name, expired_at: Math.floor(Date.now() / 1000) + 7200, ...extra },
    });
  const { data: locked } = await (await mk('Board meeting', { passcode: '424242' })).json();
  await mk('All hands');
  await signIn(page, org.token, '/aliases');
  await page.getByLabel('Search aliases').fill('board');
  await expect(page.getByTestId(`alias-row-${locked.id}`)).toBeVisible();
  await expect(page.getByRole('row')).toHaveCount(2); // header + one match
  const row = page.getByTestId(`alias-row-${locked.id}`);
  await expect(row).toContainText('passcode');
  await row.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Board meeting' });
  await expect(dialog.getByLabel('Passcode')).toHaveValue('424242');
  await dialog.getByLabel('Passcode').fill('');
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(row).toContainText('public');
  expect((await request.get(`/organization/api/v1/alias/${locked.id}`)).status()).toBe(200);
});

test('alias manager: the demo organization shows one alias of each kind of access', async ({ page, admin }) => {
  const demo = await admin(['demo']);
  await signIn(page, demo.org_token as string, '/aliases');
  for (const name of ['Demo launch stream (public)', 'Team stand-up (passcode)', 'Partner webinar (JWT)']) {
    await expect(page.getByRole('row').filter({ hasText: name })).toHaveCount(1);
  }
});
