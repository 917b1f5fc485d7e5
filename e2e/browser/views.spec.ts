import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { luminance } from '../support/colours';
import { expect, signIn, test } from '../support/fixtures';

/*
 * Design §19 as a person meets it: a view (range, sort, search, page, filters) lives in the URL, so a
 * reload, the back button and a pasted link show it again; dark mode follows the system and a toggle
 * that is remembered; each principal is offered what it can open; the playground never sends a tool
 * call without its result.
 */

test('a fleet view in the URL: sort, search, status and page survive a reload, go back a step, and open the same in a new tab', async ({
  page,
  context,
  admin,
}) => {
  const demo = await admin(['demo']);
  await signIn(page, demo.org_token as string, '/stats');
  await expect(page.getByTestId('page-info')).toHaveText('Page 1 of 2 · 1–25 of 40 nodes');

  await page.getByRole('button', { name: /USD earned/ }).click(); // numbers sort descending first
  await expect(page).toHaveURL(/sort=-usd_earned/);
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/page=2/);
  // The URL changes first, the rows with the page's answer: read the second page once it shows.
  await expect(page.getByTestId('page-info')).toHaveText('Page 2 of 2 · 26–40 of 40 nodes');
  const secondPage = await page.locator('tbody tr td').first().textContent();

  await page.reload();
  await expect(page.locator('th[aria-sort="descending"]')).toContainText('USD earned');
  await expect(page.getByTestId('page-info')).toHaveText('Page 2 of 2 · 26–40 of 40 nodes');
  await expect(page.locator('tbody tr td').first()).toHaveText(secondPage!);

  // Back: the first page, still sorted.
  await page.goBack();
  await expect(page.getByTestId('page-info')).toHaveText('Page 1 of 2 · 1–25 of 40 nodes');
  await expect(page.locator('th[aria-sort="descending"]')).toContainText('USD earned');

  // A status filter and a search, then the link pasted into another tab.
  await page.getByLabel('Status').selectOption('disconnected');
  await page.getByLabel('Search nodes').fill('never');
  await expect(page).toHaveURL(/status=disconnected/);
  await expect(page).toHaveURL(/q=never/);
  const rows = await page.locator('tbody tr').allTextContents();
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) expect(row).toMatch(/Never node[\s\S]*disconnected/);
  const other = await context.newPage();
  await other.goto(page.url());
  await expect(other.getByLabel('Search nodes')).toHaveValue('never');
  await expect(other.getByLabel('Status')).toHaveValue('disconnected');
  await expect(other.locator('tbody tr')).toHaveText(rows);
});

test('a node’s range in the URL: presets from 1 h to 90 d, per day past 14 days, and a custom range a link restores', async ({
  page,
  admin,
}) => {
  const demo = await admin(['demo']);
  await signIn(page, demo.org_token as string, '/stats/demo-node-001');
  const chart = page.getByTestId('uptime-chart');
  await expect(chart).toHaveAttribute('data-points', '169'); // the default: 7 days

  await page.getByRole('button', { name: 'Last 30 d' }).click();
  await expect(page).toHaveURL(/range=30d/);
  await expect(page.getByRole('heading', { name: 'Uptime per day (UTC)' })).toBeVisible();
  await expect(chart).toHaveAttribute('data-points', '31'); // 30 days before today, and today so far
  await expect(page.getByTestId('heat-strip')).toHaveCount(0); // the hour-by-day grid is for hourly ranges
  // The total agrees with the API for the same range: its uptime over the time passed.
  const end = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
  const series = (await (
    await page.request.get(
      `/api/v1/uptime/series?partner=${await partnerId(page)}&partner_node_id=demo-node-001&bucket=day&started_at=${await attr(chart, 'data-range-start')}&ended_at=${end}`,
    )
  ).json()) as { data: { started_at: number; measured_at: number; points: { uptime: number }[] } };
  const api = (100 * series.data.points.reduce((n, p) => n + p.uptime, 0)) / (series.data.measured_at - series.data.started_at);
  const shown = Number((await page.getByTestId('range-uptime').textContent())!.match(/^([\d.]+) %/)![1]);
  expect(Math.abs(shown - api)).toBeLessThanOrEqual(0.1);

  await page.reload();
  await expect(page.getByRole('button', { name: 'Last 30 d' })).toHaveAttribute('aria-pressed', 'true');
  await expect(chart).toHaveAttribute('data-points', '31');

  await page.getByRole('button', { name: 'Last 1 h' }).click();
  await expect(chart).toHaveAttribute('data-points', '2'); // the hour before this one, and this one so far
  await page.goBack();
  await expect(chart).toHaveAttribute('data-points', '31');

  // A custom range in the link (UTC minutes), opened afresh: rounded to the hour, 6 hourly buckets.
  const from = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16) + 'Z';
  await page.goto(`/stats/demo-node-001?from=${iso(from + 15 * 60_000)}&to=${iso(from + 6 * 3_600_000 + 30 * 60_000)}`);
  await expect(chart).toHaveAttribute('data-points', '6');
  await expect(page.getByRole('button', { name: 'Last 7 d' })).toHaveAttribute('aria-pressed', 'false');
  // One the picker would refuse (in the future) shows the default instead.
  await page.goto(`/stats/demo-node-001?from=${iso(Date.now() + 86_400_000)}&to=${iso(Date.now() + 2 * 86_400_000)}`);
  await expect(chart).toHaveAttribute('data-points', '169');
});

test('the aliases tab and search, the audit filter and the usage grouping are in the URL', async ({ page, org }) => {
  await signIn(page, org.token, '/aliases');
  await page.getByRole('tab', { name: 'Live' }).click();
  await page.getByLabel('Search aliases').fill('launch');
  await expect(page).toHaveURL(/type=live/);
  await expect(page).toHaveURL(/q=launch/);
  await page.reload();
  await expect(page.getByRole('tab', { name: 'Live' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByLabel('Search aliases')).toHaveValue('launch');

  await page.goto('/audit?action=session');
  await expect(page.getByLabel('Show actions on')).toHaveValue('session');
  await expect(page.getByRole('table', { name: 'Audit log' }).locator('tbody tr').first()).toContainText('session.sign_in');
  for (const cell of await page.getByRole('table', { name: 'Audit log' }).locator('tbody tr td:nth-child(2)').allTextContents())
    expect(cell).toMatch(/^session\./);

  await page.goto('/usage');
  await page.getByRole('group', { name: 'Per' }).getByRole('button', { name: 'model' }).click();
  await page.getByRole('button', { name: 'Last 7 d' }).click();
  // Reloaded once the view is in the URL (a reload right after the click could come before it).
  await expect(page).toHaveURL(/per=model/);
  await expect(page).toHaveURL(/range=7d/);
  await page.reload();
  await expect(page.getByRole('group', { name: 'Per' }).getByRole('button', { name: 'model' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: 'Last 7 d' })).toHaveAttribute('aria-pressed', 'true');
});

test('the usage table shows its newest 25 rows, 25 more at a click, and starts again at a new grouping', async ({ page, admin }) => {
  const demo = await admin(['demo']);
  // A week of the demo's history, hour by hour, per key: a few hundred rows (the charts and the CSV have them all).
  await signIn(page, demo.org_token as string, '/usage?range=7d&bucket=hour');
  const rows = page.getByRole('table', { name: 'Usage' }).locator('tbody tr');
  const shown = page.getByTestId('usage-rows-shown');
  // The first answer (a week of hours; the charts follow the table, see usage-page.tsx).
  await expect(shown).toContainText(/^Showing 25 of [\d,]+ rows, newest first$/);
  await expect(rows).toHaveCount(25);
  const total = Number((await shown.textContent())!.match(/of ([\d,]+) rows/)![1]!.replaceAll(',', ''));
  expect(total).toBeGreaterThan(50);
  // Newest first: the first row's hour is the latest of the page.
  const hours = (await rows.locator('td:first-child').allTextContents()).map((t) =>
    Date.parse(t.replace(',', '').replace(/[\u00a0\u202f]/g, ' ')),
  );
  expect(hours[0]).toBe(Math.max(...hours));
  await page.getByRole('button', { name: 'Show 25 more' }).click();
  await expect(rows).toHaveCount(50);
  await expect(shown).toContainText(`Showing 50 of ${total.toLocaleString('en-US')} rows`);
  // Another grouping is another table: its first 25 rows again.
  await page.getByRole('group', { name: 'Per' }).getByRole('button', { name: 'model' }).click();
  await expect(page).toHaveURL(/per=model/);
  await expect(rows).toHaveCount(25);
});

test('dark mode follows the system, a toggle overrides it and is remembered; charts and tables are drawn in the dark palette', async ({
  browser,
  admin,
}) => {
  const demo = await admin(['demo']);
  const context = await browser.newContext({ colorScheme: 'dark', baseURL: test.info().project.use.baseURL });
  const page = await context.newPage();
  await signIn(page, demo.org_token as string, '/stats/demo-node-001');
  const html = page.locator('html');
  await expect(html).toHaveClass(/dark/);
  const background = () => luminance(page, () => getComputedStyle(document.body).backgroundColor);
  expect(await background()).toBeLessThan(0.1);
  // Chart ticks and text are light on the dark page.
  await expect(page.getByTestId('uptime-chart').locator('.recharts-cartesian-axis-tick-value').first()).toBeVisible();
  expect(
    await luminance(
      page,
      () => getComputedStyle(document.querySelector('[data-testid=uptime-chart] .recharts-cartesian-axis-tick-value')!).fill,
    ),
  ).toBeGreaterThan(0.25);
  // The grid is a dim line, and the tooltip a dark card (Recharts draws both white-ish by itself).
  const grid = () => getComputedStyle(document.querySelector('[data-testid=uptime-chart] .recharts-cartesian-grid line')!).stroke;
  expect(await luminance(page, grid)).toBeLessThan(0.1);
  const plot = (await page.getByTestId('uptime-chart').locator('.recharts-surface').boundingBox())!;
  await page.mouse.move(plot.x + plot.width / 2, plot.y + plot.height / 2);
  await expect(page.getByTestId('uptime-chart').locator('.recharts-default-tooltip')).toBeVisible();
  const tooltip = () => getComputedStyle(document.querySelector('[data-testid=uptime-chart] .recharts-default-tooltip')!).backgroundColor;
  expect(await luminance(page, tooltip)).toBeLessThan(0.1);
  expect(await luminance(page, () => getComputedStyle(document.querySelector('h1')!).color)).toBeGreaterThan(0.8);

  // The toggle: system → light, remembered across a reload although the system is dark.
  const toggle = page.getByRole('button', { name: /^Theme:/ });
  await expect(toggle).toHaveAccessibleName('Theme: system. Switch to light');
  await toggle.click();
  await expect(html).not.toHaveClass(/dark/);
  await page.reload();
  await expect(html).not.toHaveClass(/dark/);
  expect(await background()).toBeGreaterThan(0.9);
  // light → dark → system (dark again, from the system).
  await page.getByRole('button', { name: /^Theme:/ }).click();
  await expect(html).toHaveClass(/dark/);
  await page.getByRole('button', { name: /^Theme:/ }).click();
  await expect(page.getByRole('button', { name: /^Theme:/ })).toHaveAccessibleName('Theme: system. Switch to light');
  expect(await page.evaluate(() => localStorage.getItem('triad-theme'))).toBeNull();
  await expect(html).toHaveClass(/dark/);

  // The API reference follows the theme.
  await page.goto('/docs');
  await expect(page.locator('.dark-mode').first()).toBeAttached({ timeout: 20_000 });
  await context.close();
});

test('playground: a pending tool call blocks a new message until answered or dismissed; no request carries an unanswered call; code runs as exported', async ({
  page,
  context,
  admin,
  org,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const { api_key } = await admin(['apikey', 'create', '--org', org.id, '--rpm', '100', '--label', 'Console playground']);
  // Every chat request the page sends: no assistant tool call may go without its tool result after it.
  const bodies: { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] }[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/v1/chat/completions') && r.method() === 'POST') bodies.push(r.postDataJSON());
  });
  await signIn(page, org.token, '/playground');
  await page.getByLabel('Model').selectOption('fake-agent');
  await page.getByLabel('Offer tools').check();
  // Two tools.
  await page.getByRole('button', { name: 'Add a tool' }).click();
  const second = page.getByRole('group', { name: 'Tool 2' });
  await second.getByLabel('Tool name').fill('lookup');
  const box = page.getByLabel('Message');
  await box.fill('Weather in Paris?');
  await box.press('Enter');
  await expect(page.getByTestId('tool-call')).toContainText('get_weather');
  expect(bodies.at(-1)!.messages.length).toBe(2);
  expect((bodies.at(-1) as unknown as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name)).toEqual([
    'get_weather',
    'lookup',
  ]);

  // Blocked until the call is answered: the button and Enter both.
  await box.fill('And in Rome?');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeDisabled();
  await expect(page.getByTestId('composer-blocked')).toContainText('Give the result of get_weather');
  await box.press('Enter');
  await expect(page.getByTestId('turn-user')).toHaveCount(1);
  await expect(box).toHaveValue('And in Rome?');

  // Dismissed: the model gets a result saying so, and goes on.
  await page.getByRole('button', { name: 'Dismiss call' }).click();
  await expect(page.getByTestId('turn-tool')).toContainText('dismissed');
  await expect(page.getByTestId('turn-assistant').last()).toContainText('Tool said: The user dismissed this tool call');
  await expect(page.getByRole('button', { name: 'Send', exact: true })).toBeEnabled();
  // A tool-call reply shows no token rate (it has no text), and every slot of its stats is filled.
  const stats = page.getByTestId('reply-stats').first();
  await expect(stats).not.toContainText('tokens/s');
  expect(await stats.textContent()).not.toMatch(/· ·|· $|served by\s*$/);

  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByTestId('turn-user')).toHaveCount(2);
  await expect(page.getByTestId('tool-call')).toHaveCount(2);

  for (const body of bodies) {
    const answered = new Set(body.messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])));
    for (const m of body.messages) for (const c of m.tool_calls ?? []) expect(answered.has(c.id), JSON.stringify(body.messages)).toBe(true);
  }

  // The conversation as TypeScript, run as it was copied, with the openai package, against this server.
  await page.getByLabel('Model').selectOption('triad-guide');
  await page.getByLabel('Offer tools').uncheck();
  await page.getByRole('button', { name: 'New chat' }).click();
  await box.fill('How do aliases expire?');
  await box.press('Enter');
  await expect(page.getByTestId('reply-stats')).toBeVisible();
  await page.getByRole('button', { name: 'Copy as TypeScript' }).click();
  const program = await page.evaluate(() => navigator.clipboard.readText());
  expect(program).toContain("import OpenAI from 'openai';");
  const file = path.join('test-results', `exported-${Date.now()}.mjs`); // inside the project: 'openai' resolves
  fs.mkdirSync('test-results', { recursive: true });
  fs.writeFileSync(file, program);
  try {
    const out = execFileSync(process.execPath, [file], {
      env: { ...process.env, TRIAD_API_KEY: api_key as string },
      timeout: 30_000,
    }).toString();
    expect(out.length).toBeGreaterThan(20); // the guide's answer, streamed
  } finally {
    fs.rmSync(file);
  }
  await page.getByRole('button', { name: 'Copy as Python' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('client.chat.completions.create(');

  // Kept in the browser: a new chat, then the earlier conversation opened again, its turns and settings back.
  const kept = page.getByRole('region', { name: 'Conversations' });
  await expect(kept.getByRole('button', { name: 'How do aliases expire?', exact: true })).toBeVisible();
  await expect(kept.getByRole('button', { name: 'Weather in Paris?', exact: true })).toBeVisible();
  await page.reload();
  await kept.getByRole('button', { name: 'Weather in Paris?', exact: true }).click();
  await expect(page.getByTestId('turn-tool')).toContainText('dismissed');
  await expect(page.getByLabel('Model')).toHaveValue('fake-agent');
  await expect(page.getByLabel('Offer tools')).toBeChecked();
  // No key is kept: the storage holds conversations only.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(stored).not.toContain(api_key as string);
  expect(stored).not.toMatch(/sk_live_|org_[A-Za-z0-9]{20}/);
});

test('each principal sees its own console: the administrator’s home and the providers’ traffic; no page tells a signed-in person to sign in', async ({
  page,
  admin,
  org,
}) => {
  const { admin_token } = await admin(['admin-token', 'create']);
  await signIn(page, admin_token as string, '/');
  const areas = page.getByRole('navigation', { name: 'Areas' });
  await expect(areas.getByRole('link')).toHaveText([/^Organizations/, /^Providers/, /^Usage/, /^Audit log/, /^API reference/]);
  await areas.getByRole('link', { name: /^Providers/ }).click();
  const table = page.getByRole('table', { name: 'Providers' });
  await expect(table.getByRole('columnheader', { name: 'Traffic 24 h' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'Errors' })).toBeVisible();
  // An organization's page, opened by the administrator: what it needs, and who is signed in.
  await page.goto('/stats');
  const note = page.getByRole('note');
  await expect(note).toContainText('you are signed in as the instance administrator');
  await expect(note).not.toContainText('Sign in');

  await page.context().clearCookies();
  await signIn(page, org.token, '/');
  await expect(page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: /^Playground|^Chat playground/ })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: /^Organizations/ })).toHaveCount(0);
  await page.goto('/providers');
  await expect(page.getByRole('note')).toContainText(`you are signed in as org for ${test.info().title}`.slice(0, 60));
  await expect(page.getByRole('note')).not.toContainText('Sign in');
});

const attr = async (l: import('@playwright/test').Locator, name: string) => (await l.getAttribute(name))!;
const partnerId = (page: import('@playwright/test').Page) =>
  page.request.get('/api/org/partners').then(async (r) => ((await r.json()) as { data: { id: string }[] }).data[0]!.id);
