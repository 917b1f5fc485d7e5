import fs from 'node:fs';
import path from 'node:path';
import { writeAdminSecret } from '@/lib/admin/admin-secret';
import { ensureDemo, isEmptyInstallation } from '@/lib/admin/demo';
import { config, ConfigError } from '@/lib/config';
import { database } from '@/lib/db/client';
import { DataDirLockedError } from '@/lib/db/lock';
import { log } from '@/lib/log';
import { purgeExpiredAliases } from '@/lib/aliases/aliases';
import { closeStaleSessions } from '@/lib/stats/ingest';
import { onShutdown } from '@/lib/shutdown';

/**
 * Server start-up, run once from instrumentation.ts: check the configuration, open the
 * database (taking the data directory lock and applying migrations), and on a new, empty
 * installation set up the demo and print its credentials once.
 */
export async function startServer(): Promise<void> {
  try {
    const c = config();
    fs.mkdirSync(c.dataDir, { recursive: true });
    const { db, driver } = await database();
    writeAdminSecret(c.dataDir);
    log.info('database ready', { driver, dataDir: driver === 'pglite' ? c.dataDir : undefined });
    if (c.TRIAD_DEMO && (await isEmptyInstallation(db))) {
      const { credentials } = await ensureDemo(db);
      const file = path.join(c.dataDir, 'demo-credentials.json');
      fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
      printDemoBanner(credentials, file, c.PORT);
    }
    schedule('alias-purge', 3_600_000, async () => {
      const n = await purgeExpiredAliases(db, { retentionDays: c.TRIAD_ALIAS_RETENTION_DAYS });
      if (n) log.info('purged expired aliases', { count: n, retentionDays: c.TRIAD_ALIAS_RETENTION_DAYS });
    });
    schedule('stale-sessions', 60_000, async () => {
      await closeStaleSessions(db, { heartbeatTimeoutMs: c.TRIAD_HEARTBEAT_TIMEOUT_S * 1000 });
    });
  } catch (e) {
    if (e instanceof ConfigError || e instanceof DataDirLockedError) {
      console.error(`triad: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
}

function printDemoBanner(credentials: Record<string, unknown>, file: string, port: number) {
  // Printed once, on the first start only; the same values are in `file` (mode 0600).
  const lines = [
    'Triad demo set up. These credentials are shown once:',
    ...Object.entries(credentials).map(([k, v]) => `  ${k.padEnd(17)} ${Array.isArray(v) ? v.join(', ') : String(v)}`),
    `Saved to ${file}`,
    `Dashboard: http://localhost:${port}/  (Credentials → "Use demo credentials")`,
  ];
  process.stdout.write('\n' + lines.join('\n') + '\n\n');
}

/**
 * Housekeeping: expired aliases are kept TRIAD_ALIAS_RETENTION_DAYS for their owner, then purged;
 * heartbeat sessions whose heartbeats stopped are closed in storage.
 */
function schedule(name: string, everyMs: number, task: () => Promise<void>) {
  const run = () => task().catch((e: Error) => log.warn(`${name} failed`, { error: e.message }));
  void run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  onShutdown(name, () => clearInterval(timer));
}
