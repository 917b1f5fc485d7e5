import { defineConfig, devices } from '@playwright/test';
import { e2eDatabaseUrl, e2eDataDir, E2E_SECRET_KEY, PORTS, UPSTREAM_PORT } from './scripts/lib/test-env.mjs';

/*
 * Two kinds of tests against a production build (`npm run test:e2e` builds it first):
 *  - api*: HTTP tests with `request`, on the embedded PGlite server and, when TEST_DATABASE_URL
 *    is set, again on a PostgreSQL server (which also sends the chat route through Next's router
 *    instead of dispatching it directly: TRIAD_DIRECT_ROUTES=0);
 *  - browser: Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium) driving the dashboard.
 * lifecycle/ tests start and kill servers of their own.
 */
const withPostgres = !!process.env.TEST_DATABASE_URL;
const server = (port: number, postgres: boolean) => ({
  command: `node scripts/test-server.mjs --port ${port}${postgres ? ' --postgres' : ''}`,
  url: `http://127.0.0.1:${port}/api/health`,
  reuseExistingServer: false,
  timeout: 120_000,
  stdout: 'ignore' as const, // the server's output is in e2eLogFile(port)
  stderr: 'pipe' as const,
  gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 10_000 },
});

/** The environment under which `npm run admin` reaches each test server's store. */
export const adminEnv: Record<'pglite' | 'postgres', Record<string, string>> = {
  pglite: { TRIAD_DATA_DIR: e2eDataDir(PORTS.pglite) },
  postgres: withPostgres
    ? { TRIAD_DATA_DIR: e2eDataDir(PORTS.postgres), DATABASE_URL: e2eDatabaseUrl(PORTS.postgres), TRIAD_SECRET_KEY: E2E_SECRET_KEY }
    : {},
};

/** Debian's Chromium (never a downloaded browser). */
const chromium = {
  ...devices['Desktop Chrome'],
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  },
};

export default defineConfig<{ driver: 'pglite' | 'postgres'; adminEnv: Record<string, string> }>({
  testDir: './e2e',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  timeout: 60_000,
  // A page's first answer under CI's load (two workers' browsers and the servers on two cores, on VMs
  // that run the suites up to three times slower than others) can take more than expect's default 5 s:
  // assertions wait up to 10 s for what a person would see, and fail as before when it never shows.
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  webServer: [
    {
      command: `node scripts/fake-upstream.mjs --port ${UPSTREAM_PORT}`,
      url: `http://127.0.0.1:${UPSTREAM_PORT}/v1/models`,
      reuseExistingServer: false,
      stdout: 'ignore' as const,
    },
    server(PORTS.pglite, false),
    ...(withPostgres ? [server(PORTS.postgres, true)] : []),
  ],
  projects: [
    {
      name: 'api',
      testMatch: 'api/**/*.spec.ts',
      use: { baseURL: `http://127.0.0.1:${PORTS.pglite}`, driver: 'pglite' as const, adminEnv: adminEnv.pglite },
    },
    ...(withPostgres
      ? [
          {
            name: 'api-postgres',
            testMatch: 'api/**/*.spec.ts',
            use: { baseURL: `http://127.0.0.1:${PORTS.postgres}`, driver: 'postgres' as const, adminEnv: adminEnv.postgres },
          },
        ]
      : []),
    // Lifecycle tests start, restart and kill servers of their own (a first start sets up the demo and
    // its history): on a slow or loaded machine that alone took over a minute (2026-11-25), so their
    // limit is there to catch a hang, not to time them.
    { name: 'lifecycle', testMatch: 'lifecycle/**/*.spec.ts', timeout: 180_000 },
    {
      // Last: the test servers' logs of the whole run hold none of the credentials the run used.
      name: 'logs',
      testMatch: 'teardown/**/*.spec.ts',
      dependencies: ['api', ...(withPostgres ? ['api-postgres', 'browser-postgres'] : []), 'browser'],
    },
    {
      name: 'browser',
      testMatch: 'browser/**/*.spec.ts',
      use: { ...chromium, baseURL: `http://127.0.0.1:${PORTS.pglite}`, driver: 'pglite' as const, adminEnv: adminEnv.pglite },
    },
    // The console's flows again on the PostgreSQL server (the rest of the dashboard reads through the same calls).
    ...(withPostgres
      ? [
          {
            name: 'browser-postgres',
            testMatch: 'browser/console.spec.ts',
            use: { ...chromium, baseURL: `http://127.0.0.1:${PORTS.postgres}`, driver: 'postgres' as const, adminEnv: adminEnv.postgres },
          },
        ]
      : []),
  ],
});
