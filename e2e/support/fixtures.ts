import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import fs from 'node:fs';
import { test as base, expect } from '@playwright/test';
import { E2E_SECRETS_FILE } from './env.mjs';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

export type AdminResult = Record<string, unknown> & { org_id?: string; org_token?: string; api_key?: string; partner_id?: string; partner_secret?: string };

/** Runs `npm run admin -- <args> --json` against the store of the server under test. */
export async function runAdmin(env: Record<string, string>, args: string[]): Promise<AdminResult> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/admin.ts'), ...args, '--json'], {
    cwd: root,
    env: { ...process.env, ...env, TRIAD_LOG_LEVEL: 'warn' },
  });
  const result = JSON.parse(stdout) as AdminResult;
  // Remember every credential made, for the end-of-run check that none reached a log.
  const secrets = Object.values(result).filter((v): v is string => typeof v === 'string' && /^(org_|sk_live_|pt_sec_)/.test(v));
  if (secrets.length) fs.appendFileSync(E2E_SECRETS_FILE, secrets.map((x) => `${x}\n`).join(''));
  return result;
}

/** Runs the admin CLI and returns its exit code and output, for tests of its failures. */
export async function runAdminRaw(env: Record<string, string>, args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/admin.ts'), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

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
export async function signIn(page: import('@playwright/test').Page, creds: { apiKey?: string; orgToken?: string; partnerSecret?: string }, path = '/') {
  await page.goto('/');
  await page.evaluate((c) => localStorage.setItem('triad.credentials', JSON.stringify(c)), { apiKey: '', orgToken: '', partnerSecret: '', ...creds });
  await page.goto(path);
}

export { expect };
