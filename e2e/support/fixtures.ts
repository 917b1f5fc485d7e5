import { test as base, expect } from '@playwright/test';
import { type AdminResult, runAdmin } from '../../scripts/lib/admin-cli';

export { type AdminResult, runAdmin, runAdminRaw } from '../../scripts/lib/admin-cli';

type Options = { driver: 'pglite' | 'postgres'; adminEnv: Record<string, string> };
type Fixtures = {
  /** A fresh organization of its own for each test: its id and org token. */
  org: { id: string; token: string };
  admin: (args: string[]) => Promise<AdminResult>;
};

export const test = base.extend<Options & Fixtures>({
  driver: ['pglite', { option: true }],
  adminEnv: [{}, { option: true }],
  admin: async ({ adminEnv }, use) => {
    await use((args) => runAdmin(adminEnv, args));
  },
  org: async ({ admin }, use, testInfo) => {
    const r = await admin(['org', 'create', '--name', `org for ${testInfo.title}`.slice(0, 150)]);
    await use({ id: r.org_id!, token: r.org_token! });
  },
});

/** Puts credentials in the browser's store, as the Credentials panel would, then opens `path`. */
export async function signIn(
  page: import('@playwright/test').Page,
  creds: { apiKey?: string; orgToken?: string; partnerSecret?: string },
  path = '/',
) {
  await page.goto('/');
  await page.evaluate((c) => localStorage.setItem('triad.credentials', JSON.stringify(c)), {
    apiKey: '',
    orgToken: '',
    partnerSecret: '',
    ...creds,
  });
  await page.goto(path);
}

export { expect };
