/*
 * Screenshots of every dashboard page at 1440 and 390 px, light and dark, for a person to look at
 * (design §19): `npm run screenshots -- --url http://127.0.0.1:3000 --out shots`. Signs in with the
 * demo organization's token (data/demo-credentials.json, or TRIAD_ORG_TOKEN) and, with
 * TRIAD_ADMIN_TOKEN, as the administrator too. Debian's Chromium (CHROMIUM_PATH).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { scriptOptions } from './lib/cli.mjs';

const USAGE = `usage: npm run screenshots -- [--url URL] [--out DIR] [--data DIR] [--only PAGE]
  --url URL    the running server (http://127.0.0.1:3000)
  --out DIR    where the PNGs go (screenshots)
  --data DIR   its data directory, for the demo's credentials (TRIAD_DATA_DIR, else data)
  --only PAGE  only the pages whose path holds PAGE (stats, say)
Every dashboard page at 1440 and 390 px, light and dark; TRIAD_ORG_TOKEN and TRIAD_ADMIN_TOKEN sign in
(the administrator's pages with the latter); Debian's Chromium (CHROMIUM_PATH).`;
const values = scriptOptions(USAGE, {
  url: { type: 'string', default: 'http://127.0.0.1:3000' },
  out: { type: 'string', default: 'screenshots' },
  data: { type: 'string', default: process.env.TRIAD_DATA_DIR ?? 'data' },
  only: { type: 'string' },
});
const demo = (() => {
  try {
    return JSON.parse(fs.readFileSync(path.join(values.data!, 'demo-credentials.json'), 'utf8')) as { org_token: string };
  } catch {
    return null;
  }
})();
const orgToken = process.env.TRIAD_ORG_TOKEN ?? demo?.org_token;
const adminToken = process.env.TRIAD_ADMIN_TOKEN;
const ORG_PAGES = [
  '/',
  '/playground',
  '/stats',
  '/stats/demo-node-001',
  '/aliases',
  '/keys',
  '/partners',
  '/usage',
  '/requests',
  '/audit',
  '/docs',
];
const ADMIN_PAGES = ['/', '/organizations', '/providers', '/usage', '/audit'];
const SIZES = [
  { name: '1440', width: 1440, height: 900 },
  { name: '390', width: 390, height: 844 },
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox'] });
fs.mkdirSync(values.out!, { recursive: true });
const who = [
  ...(orgToken ? [{ role: 'org', token: orgToken, pages: ORG_PAGES }] : []),
  ...(adminToken ? [{ role: 'admin', token: adminToken, pages: ADMIN_PAGES }] : []),
];
if (!who.length) throw new Error('no token: start Triad with its demo (data/demo-credentials.json) or set TRIAD_ORG_TOKEN');
for (const { role, token, pages } of who)
  for (const size of SIZES)
    for (const scheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ viewport: size, colorScheme: scheme, baseURL: values.url });
      const page = await context.newPage();
      const signed = await page.request.post('/api/session', { data: { token }, headers: { origin: values.url! } });
      if (!signed.ok()) throw new Error(`sign-in as ${role}: ${signed.status()}`);
      for (const p of pages) {
        if (values.only && !p.includes(values.only)) continue;
        await page.goto(p);
        await page.waitForLoadState('networkidle').catch(() => {});
        await page.waitForTimeout(300); // charts draw after their data
        const file = path.join(values.out!, `${role}${p.replaceAll('/', '_') || '_home'}-${size.name}-${scheme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        console.log(`${file}${wide > 0 ? `  (the page is ${wide} px wider than the window)` : ''}`);
      }
      await context.close();
    }
await browser.close();
