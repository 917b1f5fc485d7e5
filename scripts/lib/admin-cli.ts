// Runs the admin CLI (`npm run admin`) as the tests and benchmarks do: a real process against a real store.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { E2E_SECRETS_FILE } from './test-env.mjs';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const bundle = path.join(root, '.next', 'triad', 'admin.js');

/**
 * How the CLI is started: the build's bundle of scripts/admin.ts (what the package runs as admin.mjs)
 * when there is one — `npm run test:e2e` and the benchmarks build first —, else scripts/admin.ts through
 * tsx as `npm run admin` does. The bundle starts in a second, tsx in three (it compiles on each start):
 * about two hundred calls in the end-to-end suites.
 */
const cli = () => (fs.existsSync(bundle) ? [bundle] : ['--import', 'tsx', path.join(root, 'scripts/admin.ts')]);

export type AdminResult = Record<string, unknown> & {
  org_id?: string;
  org_token?: string;
  api_key?: string;
  partner_id?: string;
  partner_secret?: string;
};

/** Runs `npm run admin -- <args> --json` against the store of the server under test. */
export async function runAdmin(env: Record<string, string>, args: string[]): Promise<AdminResult> {
  const { stdout } = await run(process.execPath, [...cli(), ...args, '--json'], {
    cwd: root,
    env: { ...process.env, ...env, TRIAD_LOG_LEVEL: 'warn' },
  });
  const result = JSON.parse(stdout) as AdminResult;
  // Remember every credential made, for the end-of-run check that none reached a log.
  rememberSecrets(Object.values(result).filter((v): v is string => typeof v === 'string' && /^(org_|sk_live_|pt_sec_|adm_)/.test(v)));
  return result;
}

/** A new organization (`name`) and an API key of it without a rate limit (`extra`: more `apikey create` flags), for a benchmark's load. */
export async function unlimitedKey(
  env: Record<string, string>,
  name: string,
  extra: string[] = [],
): Promise<{ orgId: string; apiKey: string }> {
  const { org_id } = await runAdmin(env, ['org', 'create', '--name', name]);
  const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!, '--rpm', '1000000', ...extra]);
  return { orgId: org_id!, apiKey: api_key! };
}

/** Remembers credentials a test made or saw (shown-once keys, session cookies) for the end-of-run check that none reached a log. */
export function rememberSecrets(secrets: string[]): void {
  if (secrets.length) fs.appendFileSync(E2E_SECRETS_FILE, secrets.map((x) => `${x}\n`).join(''));
}

/** Runs the admin CLI and returns its exit code and output, for tests of its failures. */
export async function runAdminRaw(env: Record<string, string>, args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...cli(), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
