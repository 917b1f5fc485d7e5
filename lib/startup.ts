import { purgeExpiredResponses } from '@/lib/dialects/responses/store';
import fs from 'node:fs';
import path from 'node:path';
import { writeAdminSecret } from '@/lib/auth/admin-secret';
import { ensureDemo, isEmptyInstallation, startDemoProviders, stopDemoProviders } from '@/lib/admin/demo';
import { startProber } from '@/lib/providers/prober';
import { ensureDefaultProvider } from '@/lib/providers/store';
import { type Config, config, ConfigError } from '@/lib/config';
import { database, type Db, isNewEmbeddedDataDir, openDatabase } from '@/lib/db/client';
import { DataDirLockedError } from '@/lib/db/lock';
import { localRoutesEnabled } from '@/lib/http/peer';
import { log } from '@/lib/log';
import { deleteOldTraffic } from '@/lib/providers/traffic';
import { purgeExpiredAliases } from '@/lib/aliases/aliases';
import { closeStaleSessions } from '@/lib/stats/ingest';
import { deleteOldEvents } from '@/lib/stats/retention';
import { deleteOldRequests } from '@/lib/observability/request-log';
import { rollUpUsage } from '@/lib/chat/usage';
import { purgeEndedSessions } from '@/lib/console/sessions';
import { onShutdown } from '@/lib/shutdown';
import { wireStatistics } from '@/lib/stats/subscriptions';
import { setPhase } from '@/lib/core/phase';
import { vacuumEmbedded } from '@/lib/db/vacuum';

/**
 * Server start-up, run once from instrumentation.ts: check the configuration, open the
 * database (taking the data directory lock and applying migrations), and on a new, empty
 * installation set up the demo and print its credentials once.
 */
export async function startServer(): Promise<void> {
  try {
    wireStatistics();
    const c = config();
    setPhase('database');
    fs.mkdirSync(c.dataDir, { recursive: true });
    const brandNew = isNewEmbeddedDataDir(c);
    if (brandNew) {
      setPhase('demo');
      await setUpNewDataDir(c);
    }
    const opened = await database();
    const { db, driver } = opened;
    writeAdminSecret(c.dataDir);
    log.info('database ready', { driver, dataDir: driver === 'pglite' ? c.dataDir : undefined });
    setPhase('demo');
    if (!brandNew) await setUpDemo(db, c);
    setPhase('providers');
    // Providers (design §10): TRIAD_UPSTREAM_URL as the provider `default`; in demo mode on the embedded
    // database without one, the demo nodes' model servers; then the prober.
    if (c.TRIAD_UPSTREAM_URL) {
      await ensureDefaultProvider(db, {
        url: c.TRIAD_UPSTREAM_URL,
        apiKey: c.TRIAD_UPSTREAM_API_KEY,
        timeoutMs: c.TRIAD_UPSTREAM_TIMEOUT_MS,
      });
    } else if (c.TRIAD_DEMO && driver === 'pglite') {
      await startDemoProviders(db);
    }
    const prober = startProber(opened);
    if (!c.TRIAD_UPSTREAM_URL && c.TRIAD_DEMO && driver === 'pglite') onShutdown('demo-providers', () => stopDemoProviders(db));
    schedule('alias-purge', 3_600_000, async () => {
      const n = await purgeExpiredAliases(db, { retentionDays: c.TRIAD_ALIAS_RETENTION_DAYS });
      if (n) log.info('purged expired aliases', { count: n, retentionDays: c.TRIAD_ALIAS_RETENTION_DAYS });
    });
    schedule('stale-sessions', 60_000, async () => {
      await closeStaleSessions(db, { heartbeatTimeoutMs: c.TRIAD_HEARTBEAT_TIMEOUT_S * 1000 });
    });
    // Bounded growth (design §12), once per cluster: on the instance that probes the providers. First
    // a minute after start (leadership is settled by then), then every hour.
    schedule(
      'retention',
      3_600_000,
      async () => {
        if (!prober.isLeader()) return;
        const events = await deleteOldEvents(db, {
          retentionDays: c.TRIAD_EVENT_RETENTION_DAYS,
          heartbeatTimeoutMs: c.TRIAD_HEARTBEAT_TIMEOUT_S * 1000,
        });
        const usage = await rollUpUsage(db, { olderThanDays: c.TRIAD_USAGE_ROLLUP_DAYS });
        const sessions = await purgeEndedSessions(db);
        const responses = await purgeExpiredResponses(db);
        const traffic = await deleteOldTraffic(db, c.TRIAD_EVENT_RETENTION_DAYS);
        const requests = await deleteOldRequests(db, c.TRIAD_REQUEST_LOG_DAYS);
        if (events || usage || sessions || responses || traffic || requests)
          log.info('retention', {
            eventsDeleted: events,
            usageGroupsRolledUp: usage,
            sessionsPurged: sessions,
            responsesDeleted: responses,
            providerTrafficHoursDeleted: traffic,
            requestLogDeleted: requests,
          });
      },
      60_000,
    );
    // The embedded database has no autovacuum (lib/db/vacuum.ts): its rounds every TRIAD_PGLITE_VACUUM_S
    // (ten minutes), the first two minutes after start (after retention's first), or one round's time if shorter.
    if (driver === 'pglite')
      schedule(
        'vacuum',
        c.TRIAD_PGLITE_VACUUM_S * 1000,
        async () => {
          const started = performance.now();
          const vacuumed = await vacuumEmbedded(db);
          if (vacuumed.length)
            log.info('vacuum', { count: vacuumed.length, tables: vacuumed.join(' '), ms: Math.round(performance.now() - started) });
        },
        Math.min(120, c.TRIAD_PGLITE_VACUUM_S) * 1000,
      );
  } catch (e) {
    if (e instanceof ConfigError || e instanceof DataDirLockedError) {
      console.error(`triad: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
}

/**
 * A new embedded database: its cluster, migrations and (in demo mode) the demo's weeks of history, in an
 * instance of its own, closed before the serving one opens: PGlite never gives back the WebAssembly memory
 * it grew into while an instance lives, and the server would keep that high-water mark for good. Triad's
 * server runs this in a child process (lib/server/main.ts), whose malloc heap goes with it.
 */
export async function setUpNewDataDir(c: Config = config()): Promise<void> {
  fs.mkdirSync(c.dataDir, { recursive: true });
  const setup = await openDatabase({ driver: 'pglite', dataDir: c.dataDir, port: c.PORT });
  try {
    await setUpDemo(setup.db, c);
  } finally {
    await setup.close();
  }
}

/** On a new, empty installation in demo mode: the demo, its credentials printed once and saved (0600). */
async function setUpDemo(db: Db, c: Config) {
  if (!c.TRIAD_DEMO || !(await isEmptyInstallation(db))) return;
  const { credentials } = await ensureDemo(db);
  const file = path.join(c.dataDir, 'demo-credentials.json');
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  printDemoBanner(credentials, file, c.PORT);
}

function printDemoBanner(credentials: Record<string, unknown>, file: string, port: number) {
  // Printed once, on the first start only; the same values are in `file` (mode 0600). The dashboard's
  // sign-in offers the demo organization to this machine's browsers while Triad listens on loopback.
  const signIn = localRoutesEnabled()
    ? '"Sign in" → "Sign in to the demo organization" (or paste the org_token above)'
    : '"Sign in" and paste the org_token above';
  const lines = [
    'Triad demo set up. These credentials are shown once:',
    ...Object.entries(credentials).map(([k, v]) => `  ${k.padEnd(17)} ${Array.isArray(v) ? v.join(', ') : String(v)}`),
    `Saved to ${file}`,
    `Dashboard: http://localhost:${port}/ — ${signIn}`,
  ];
  process.stdout.write('\n' + lines.join('\n') + '\n\n');
}

/**
 * Housekeeping: expired aliases are kept TRIAD_ALIAS_RETENTION_DAYS for their owner, then purged;
 * heartbeat sessions whose heartbeats stopped are closed in storage; old events and usage are trimmed.
 */
function schedule(name: string, everyMs: number, task: () => Promise<void>, firstAfterMs = 0) {
  const run = () => task().catch((e: Error) => log.warn(`${name} failed`, { error: e.message }));
  let timer: NodeJS.Timeout;
  const first = setTimeout(() => {
    void run();
    timer = setInterval(run, everyMs);
    timer.unref();
  }, firstAfterMs);
  first.unref();
  onShutdown(name, () => {
    clearTimeout(first);
    clearInterval(timer);
  });
}
