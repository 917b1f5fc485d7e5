import { luminance } from '../support/colours';
import { expect, signIn, test } from '../support/fixtures';

test('a first visit, signed out, fails no request: the page learns that nobody is signed in without an error', async ({ page }) => {
  const failures: string[] = [];
  page.on('console', (m) => void (m.type() === 'error' && failures.push(`console: ${m.text()}`)));
  page.on('response', (r) => void (r.status() >= 400 && failures.push(`${r.status()} ${r.url()}`)));
  await page.goto('/');
  await expect(page.getByRole('banner').getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByTestId('health')).toContainText('Server healthy');
  expect(failures).toEqual([]);
});

test('a page whose code arrives after the session has answered hydrates what the server rendered: no mismatch, no page thrown away', async ({
  page,
  org,
}) => {
  await signIn(page, org.token);
  const thrown: string[] = [];
  page.on('pageerror', (e) => thrown.push(e.message));
  // The home page's own code (below the shell's Suspense boundary) is held until the shell shows who
  // is signed in, so the page hydrates with the session already in the query cache: the order a slow
  // connection gives now and then, here every time.
  const signedIn = page.getByRole('banner').getByRole('button', { name: /^org for / });
  let held = 0;
  await page.route('**/_next/static/chunks/*.js', async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    if (body.includes('Partner statistics')) {
      held++;
      await signedIn.waitFor();
    }
    await route.fulfill({ response, body });
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Session', level: 2 })).toBeVisible();
  await expect(page.getByRole('link', { name: /Partner statistics/ })).toBeVisible();
  expect(held).toBe(1);
  await page.unrouteAll({ behavior: 'ignoreErrors' }); // the links' prefetches may still be on their way
  // React reports a mismatch (its error #418) as a page error when it discards the server's HTML.
  expect(thrown).toEqual([]);
});

test('sign-in: a wrong token is refused, the demo organization signs in, the session survives a reload, sign out ends it; nothing is in localStorage', async ({
  page,
  admin,
}) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Triad', level: 1 })).toBeVisible();
  await expect(page.getByTestId('health')).toContainText('Server healthy');

  // Navigation to the three areas, which ask to sign in.
  for (const name of ['Playground', 'Stats', 'Aliases']) {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
    await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
    await expect(page.getByRole('link', { name })).toHaveAttribute('aria-current', 'page');
    await expect(page.getByText(/This page needs an organization's session/)).toBeVisible();
  }

  // A wrong token typed by hand is refused.
  await page.getByRole('banner').getByRole('button', { name: 'Sign in' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign in' });
  await dialog.getByLabel('Token').fill('org_not-a-real-token');
  await dialog.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(dialog.getByRole('alert')).toHaveText('This server does not know that token, or it was revoked.');

  // The demo organization, in one click (offered on this machine in demo mode).
  await admin(['demo']);
  await dialog.getByRole('button', { name: 'Sign in to the demo organization' }).click();
  const who = page.getByRole('banner').getByRole('button', { name: 'Demo organization' });
  await expect(who).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Keys' })).toBeVisible();
  await page.reload();
  await expect(who).toBeVisible();

  // The session is an HttpOnly cookie: no script reads it, and the browser's storage holds nothing.
  expect(await page.evaluate(() => document.cookie)).not.toContain('triad_session');
  expect(await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length }))).toEqual({ local: 0, session: 0 });
  const cookie = (await page.context().cookies()).find((c) => c.name === 'triad_session')!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });

  // Sign out: the cookie no longer opens anything.
  await who.click();
  await page.getByRole('dialog', { name: 'Session' }).getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page.getByRole('banner').getByRole('button', { name: 'Sign in' })).toBeVisible();
  const after = await page.request.get('/api/org/api-keys', { headers: { cookie: `triad_session=${cookie.value}` } });
  expect(after.status()).toBe(401);
});

test('tokens an earlier version stored in localStorage sign in once and are removed', async ({ page, org }) => {
  await page.goto('/');
  await page.waitForLoadState('networkidle'); // the page has looked for stored tokens: these come after
  await page.evaluate(
    (t) => localStorage.setItem('triad.credentials', JSON.stringify({ apiKey: 'sk_live_old', orgToken: t, partnerSecret: 'pt_sec_old' })),
    org.token,
  );
  await page.reload();
  await expect(page.getByRole('status').filter({ hasText: 'signed you in' })).toBeVisible();
  await expect(page.getByRole('button', { name: /org for tokens an earlier version/ })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('triad.credentials'))).toBeNull();
  // A stored token that no longer works is removed all the same.
  await page.context().clearCookies();
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => localStorage.setItem('triad.credentials', JSON.stringify({ orgToken: 'org_revoked' })));
  await page.reload();
  await expect(page.getByRole('status').filter({ hasText: 'were removed' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.length)).toBe(0);
  await expect(page.getByRole('banner').getByRole('button', { name: 'Sign in' })).toBeVisible();
});

for (const { width, height, name, dark } of [
  { width: 390, height: 844, name: 'on a phone (390 px)', dark: false },
  { width: 1440, height: 900, name: 'on a desktop (1440 px)', dark: false },
  { width: 390, height: 844, name: 'on a phone in dark mode', dark: true },
]) {
  test(`${name} no page is wider than the window, no action is off screen, a card's values stay on its right, and the navigation and the session stay in reach`, async ({
    page,
    admin,
  }) => {
    // Every page of both roles, each until the network is idle, and two replies of the guide: 42–50 s alone
    // on this project's VM, past a minute beside the other worker's tests.
    test.setTimeout(120_000);
    await page.setViewportSize({ width, height });
    if (dark) await page.emulateMedia({ colorScheme: 'dark' });
    // In dark mode: the page dark, its heading light (no page keeps a light background of its own).
    // (0.0196 and 0.448: the relative luminances of greys at 15 % and 70 % of full brightness.)
    const darkDrawn = async () => ({
      page: (await luminance(page, () => getComputedStyle(document.body).backgroundColor)) < 0.0196,
      heading: (await luminance(page, () => getComputedStyle(document.querySelector('h1')!).color)) > 0.448,
    });
    // What a person must press or fill and is drawn outside the window (in a box that scrolls sideways, say).
    const offScreen = () =>
      page.evaluate((w) => {
        const controls = [...document.querySelectorAll('button, a[href], input, select, textarea, summary')];
        return controls
          .filter((e) => {
            const r = e.getBoundingClientRect();
            return r.width > 1 && r.height > 1 && getComputedStyle(e).visibility !== 'hidden' && (r.left < -1 || r.right > w + 1);
          })
          .map((e) => `${e.tagName} ${(e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 40)}`)
          .concat(
            // Text boxes too narrow to type in (the Keys page's name box was 75 px wide).
            [...document.querySelectorAll('input[type=text], input:not([type]), input[type=search], textarea')]
              .filter((e) => {
                const r = e.getBoundingClientRect();
                return r.width > 1 && r.width < 120;
              })
              .map((e) => `narrow ${e.getAttribute('aria-label') ?? e.getAttribute('name') ?? e.tagName}`),
            // Tables with columns out of sight in a box that scrolls sideways (the earnings statement's
            // "USD earned" was, on a phone): a table turns into cards or keeps its key columns on screen.
            [...document.querySelectorAll('table')]
              .filter((t) => t.getBoundingClientRect().width > t.parentElement!.clientWidth + 1)
              .map((t) => `table ${t.getAttribute('aria-label') ?? ''} wider than its box`),
          );
      }, width);
    // On a phone a table is cards, each cell a line of its column's name and the value on the right: a
    // value too long to sit beside the name wraps to a line of its own, still on the right (it fell to the left).
    const raggedCells = () =>
      page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('table.cards td[data-label]')]
          .filter((td) => getComputedStyle(td).display === 'flex' && td.textContent!.trim())
          .filter((td) => {
            const range = document.createRange();
            range.selectNodeContents(td);
            return range.getBoundingClientRect().right < td.getBoundingClientRect().right - 2;
          })
          .map((td) => `${td.dataset.label}: ${td.textContent!.trim().slice(0, 40)}`),
      );
    const nav = page.getByRole('navigation', { name: 'Main' });
    const demo = await admin(['demo']);
    await signIn(page, demo.org_token as string);
    const nodeId = (demo.partner_node_ids as string[])[0]!;
    for (const path of [
      '/',
      '/playground',
      '/stats',
      `/stats/${nodeId}`,
      '/aliases',
      '/keys',
      '/partners',
      '/usage',
      '/requests',
      '/audit',
      '/docs',
    ]) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
      await page.waitForLoadState('networkidle'); // what the page loads (node list, API reference) is in place
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth, path).toBeLessThanOrEqual(width);
      expect(await offScreen(), path).toEqual([]);
      if (width < 640) expect(await raggedCells(), path).toEqual([]);
      if (dark) expect(await darkDrawn(), path).toEqual({ page: true, heading: true });
      await expect(page.getByRole('banner').getByRole('button', { name: 'Demo organization' })).toBeInViewport();
      // Below 1024 px the menu is a button that opens the links.
      if (width < 1024) {
        await expect(nav).toBeHidden();
        await page.getByRole('button', { name: 'Menu', exact: true }).click();
      }
      await expect(nav.getByRole('link', { name: 'Aliases' })).toBeInViewport();
      if (width < 1024) await page.getByRole('button', { name: 'Menu', exact: true }).click();
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
    // The administrator's pages.
    const { admin_token } = await admin(['admin-token', 'create']);
    await page.context().clearCookies();
    await signIn(page, admin_token as string);
    for (const path of ['/', '/organizations', '/providers', '/usage', '/audit']) {
      await page.goto(path);
      await page.waitForLoadState('networkidle');
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(width);
      expect(await offScreen(), path).toEqual([]);
      if (width < 640) expect(await raggedCells(), path).toEqual([]);
      if (dark) expect(await darkDrawn(), path).toEqual({ page: true, heading: true });
      await expect(page.getByRole('banner').getByRole('button', { name: 'Administrator' })).toBeInViewport();
    }
  });
}
