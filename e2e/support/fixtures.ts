import { test as base, expect } from '@playwright/test';
import { type AdminResult, rememberSecrets, runAdmin } from '../../scripts/lib/admin-cli';

export { type AdminResult, rememberSecrets, runAdmin, runAdminRaw } from '../../scripts/lib/admin-cli';

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

/**
 * Signs the browser in as a person would (POST /api/session from this server's own origin): the
 * session cookie lands in the page's context. Then opens `path`.
 */
export async function signIn(page: import('@playwright/test').Page, token: string, path = '/') {
  const origin = new URL(test.info().project.use.baseURL!).origin;
  const res = await page.request.post('/api/session', { data: { token }, headers: { origin } });
  expect(res.status(), await res.text()).toBe(200);
  const cookie = (await page.context().cookies()).find((c) => c.name === 'triad_session');
  rememberSecrets([cookie!.value, (await res.json()).data.csrf_token]);
  await page.goto(path);
}

export { expect };
