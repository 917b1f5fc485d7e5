import { expect, signIn, test } from '../support/fixtures';

test('the dashboard shell navigates, and the credentials panel saves, checks, fills from the demo and clears', async ({ page, admin }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Triad', level: 1 })).toBeVisible();
  await expect(page.getByTestId('health')).toContainText('Server healthy');

  // Navigation to the three areas.
  for (const name of ['Playground', 'Stats', 'Aliases']) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
    await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
    await expect(page.getByRole('link', { name })).toHaveAttribute('aria-current', 'page');
  }

  // A wrong token typed by hand is reported as not accepted.
  await page.getByRole('button', { name: /Credentials/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Credentials' });
  await dialog.getByLabel(/Organization token/).fill('org_not-a-real-token');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('button', { name: /Credentials/ })).toContainText('1/3');
  await page.getByRole('button', { name: /Credentials/ }).click();
  await expect(dialog.getByTestId('verdict-orgToken')).toHaveText('✗ not accepted by this server');

  // One click fills the demo credentials; all three are valid; they survive a reload.
  const demo = await admin(['demo']);
  await dialog.getByRole('button', { name: 'Use demo credentials' }).click();
  await expect(dialog.getByTestId('verdict-apiKey')).toContainText('✓ valid — Demo organization');
  await expect(dialog.getByTestId('verdict-orgToken')).toContainText('✓ valid');
  await expect(dialog.getByTestId('verdict-partnerSecret')).toContainText('✓ valid — Demo partner');
  await page.reload();
  await expect(page.getByRole('button', { name: /Credentials/ })).toContainText('3/3');
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('triad.credentials') ?? '{}'));
  expect(stored).toEqual({ apiKey: demo.api_key, orgToken: demo.org_token, partnerSecret: demo.partner_secret });

  // The home page's panel shows the stored values, masked until revealed.
  await page.goto('/');
  const panel = page.getByRole('region', { name: 'Credentials' }).first();
  await expect(panel.getByLabel(/API key/)).toHaveAttribute('type', 'password');
  await panel.getByLabel('Show values').check();
  await expect(panel.getByLabel(/API key/)).toHaveValue(demo.api_key as string);

  // Clear removes them from the browser.
  await panel.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByRole('button', { name: /Credentials/ })).toContainText('0/3');
  expect(await page.evaluate(() => localStorage.getItem('triad.credentials'))).toBeNull();
});

for (const { width, height, name } of [
  { width: 390, height: 844, name: 'on a phone (390 px)' },
  { width: 1440, height: 900, name: 'on a desktop (1440 px)' },
]) {
  test(`${name} no page is wider than the window, and the navigation and credentials stay in reach`, async ({ page, admin }) => {
    await page.setViewportSize({ width, height });
    const demo = await admin(['demo']);
    await signIn(page, {
      apiKey: demo.api_key as string,
      orgToken: demo.org_token as string,
      partnerSecret: demo.partner_secret as string,
    });
    const nodeId = (demo.partner_node_ids as string[])[0]!;
    for (const path of ['/', '/playground', '/stats', `/stats/${nodeId}`, '/aliases', '/docs']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
      await page.waitForLoadState('networkidle'); // what the page loads (node list, API reference) is in place
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth, path).toBeLessThanOrEqual(width);
      await expect(page.getByRole('button', { name: /Credentials/ })).toBeInViewport();
      await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Aliases' })).toBeInViewport();
    }
    // Long replies (code blocks, tables, long lines of the documentation) wrap inside the window too,
    // and the settings stay in reach beside them.
    await page.goto('/playground');
    for (const question of ['How do I run the tests?', 'Which environment variables configure Triad?']) {
      await page.getByPlaceholder(/Message/).fill(question);
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('reply-stats')).toHaveCount(question.startsWith('How') ? 1 : 2);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    if (width >= 1024) {
      // Beside the conversation, not pushed past the right edge by it (it was cut off at 1 679 px).
      const box = (await page.getByLabel('Model').boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(box.x).toBeGreaterThan(width / 2);
    }
  });
}
