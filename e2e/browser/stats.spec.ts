import fs from 'node:fs';
import { expect, signIn, test } from '../support/fixtures';

test('stats: the fleet view lists the demo fleet; a node shows its uptime chart and the range changes it', async ({ page, admin }) => {
  const demo = await admin(['demo']);
  // Node pages fetched before one is opened (Next's prefetch of every row's link): none.
  const prefetched: string[] = [];
  page.on('request', (r) => {
    if (/\/stats\/demo-node-/.test(r.url()) && r.headers()['next-router-prefetch']) prefetched.push(r.url());
  });
  await signIn(page, demo.org_token as string, '/stats');

  const totals = page.getByLabel('Fleet totals');
  await expect(totals).toContainText('Nodes40');
  // The footer counts the rows it shows.
  await expect(page.getByTestId('page-info')).toHaveText('Page 1 of 2 · 1–25 of 40 nodes');
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByTestId('page-info')).toHaveText('Page 2 of 2 · 26–40 of 40 nodes');

  // Sorting by total uptime puts a never-connected node last.
  await page.getByRole('button', { name: /Total uptime/ }).click();
  await page.getByRole('button', { name: /Total uptime/ }).click();
  await expect(page.locator('th[aria-sort="ascending"]')).toContainText('Total uptime');
  await expect(page.locator('tbody tr').first()).toContainText('0 s');

  expect(prefetched).toEqual([]);

  // Search by partner_node_id, then open the node.
  await page.getByLabel('Search nodes').fill('demo-node-003');
  await expect(page.locator('tbody tr')).toHaveCount(1);
  await page.locator('tbody tr').first().getByRole('link').click();
  await expect(page).toHaveURL(/\/stats\/demo-node-003$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('node 3');

  const chart = page.getByTestId('uptime-chart');
  await expect(chart).toHaveAttribute('data-points', '169'); // 7 days of hours, and the one under way
  await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
  // The x-axis names each day once (it used to repeat every date: Nov 17, Nov 17, Nov 18…).
  const tickLabels = () => chart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
  await expect.poll(async () => (await tickLabels()).length).toBeGreaterThanOrEqual(4);
  const week = await tickLabels();
  expect(new Set(week).size).toBe(week.length);
  const weekly = await page.getByTestId('range-uptime').textContent();
  await expect(page.getByTestId('heat-strip')).toBeVisible();

  await page.getByRole('button', { name: 'Last 24 h' }).click();
  await expect(chart).toHaveAttribute('data-points', '25');
  await expect(page.getByTestId('range-uptime')).not.toHaveText(weekly!);
  // Of the time passed: the 24 hours before this one, and the hour under way up to now.
  await expect(page.getByTestId('range-uptime')).toContainText(/of 1 d 0 h/);
  const day = await tickLabels(); // hours within a day, each once
  expect(day.length).toBeGreaterThanOrEqual(3);
  expect(new Set(day).size).toBe(day.length);

  // A range in the future is refused in the picker, with the reason.
  const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await page.getByLabel('From', { exact: true }).fill(local(new Date(Date.now() + 2 * 86_400_000)));
  await page.getByLabel('To', { exact: true }).fill(local(new Date(Date.now() + 9 * 86_400_000)));
  await expect(page.getByRole('alert').filter({ hasText: 'reaches into the future' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Apply range' })).toBeDisabled();

  // A custom range over the API's 366 days is refused in the picker, with the reason.
  await page.getByLabel('From', { exact: true }).fill('2024-01-01T00:00');
  await page.getByLabel('To', { exact: true }).fill('2025-02-04T00:00');
  await expect(page.getByRole('alert').filter({ hasText: 'A range can be at most 366 days' })).toHaveText(
    'A range can be at most 366 days; this one is 400.0 days.',
  );
  await expect(page.getByRole('button', { name: 'Apply range' })).toBeDisabled();
  // A valid custom range is rounded down to the hour and applied.
  // 15 minutes past an hour, three days ago; the end 6 h 30 min later: 6 whole hours after rounding down.
  const from = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 86_400_000 + 15 * 60_000);
  await page.getByLabel('From', { exact: true }).fill(local(from));
  await page.getByLabel('To', { exact: true }).fill(local(new Date(from.getTime() + 6 * 3_600_000 + 30 * 60_000)));
  await page.getByRole('button', { name: 'Apply range' }).click();
  await expect(chart).toHaveAttribute('data-points', '6');
  await expect(page.getByTestId('rounded-range')).toContainText('rounded down to the hour');

  // CSV export of what is shown.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const csv = fs
    .readFileSync((await (await download).path())!, 'utf8')
    .trim()
    .split('\n');
  expect(csv[0]).toBe('bucket_start,bucket_start_ms,uptime_ms,elapsed_ms,uptime_percent');
  expect(csv).toHaveLength(7);

  // A node connected the whole day reads 100 %: the unfinished hour is not counted as down time.
  await page.goto('/stats/demo-node-001');
  await page.getByRole('button', { name: 'Last 24 h' }).click();
  await expect(page.getByTestId('range-uptime')).toContainText(/^100\.0 % up/);
  await expect(page.getByTestId('uptime-chart')).toHaveAttribute('data-points', '25');
});

test('stats: signed out, an organization without partners, and a partner with several are explained', async ({ page, admin, org }) => {
  await page.goto('/stats');
  await expect(page.getByText("This page needs an organization's session")).toBeVisible();
  await signIn(page, org.token, '/stats');
  await expect(page.getByText('has no partner yet')).toBeVisible();
  await admin(['partner', 'create', '--org', org.id, '--name', 'First']);
  await admin(['partner', 'create', '--org', org.id, '--name', 'Second']);
  await page.reload();
  const picker = page.getByLabel('Partner');
  await expect(picker.locator('option')).toHaveText(['First (0 nodes)', 'Second (0 nodes)']);
  await picker.selectOption({ label: 'Second (0 nodes)' });
  await page.reload();
  await expect(picker).toHaveValue((await picker.locator('option', { hasText: 'Second' }).getAttribute('value')) as string);
  await expect(page.getByText('This partner has no nodes yet')).toBeVisible();
});
