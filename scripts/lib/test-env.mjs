// Where the Playwright suite's servers keep their data; shared by scripts/test-server.mjs and the tests.
import os from 'node:os';
import path from 'node:path';

export const PORTS = { pglite: 3201, postgres: 3202 };
/** The fake OpenAI-compatible upstream (scripts/fake-upstream.mjs) the test servers use. */
export const UPSTREAM_PORT = 3290;
export const UPSTREAM_URL = `http://127.0.0.1:${UPSTREAM_PORT}/v1`;
/** A fixed key for the PostgreSQL test server (a test key, never used elsewhere). */
export const E2E_SECRET_KEY = 'e2e0'.repeat(16);

export const e2eDataDir = (port) => path.join(os.tmpdir(), `triad-e2e-${port}`);

export function e2eDatabaseUrl(port) {
  const url = new URL(process.env.TEST_DATABASE_URL);
  url.pathname = `/triad_e2e_${port}`;
  return url.toString();
}

/** Everything a test server writes, kept for the end-of-run log check (e2e/teardown). */
export const e2eLogFile = (port) => path.join(os.tmpdir(), `triad-e2e-${port}.log`);
/** Every credential the admin CLI made during the run, one a line, for the same check. */
export const E2E_SECRETS_FILE = path.join(os.tmpdir(), 'triad-e2e-secrets.txt');
