import fs from 'node:fs';
import { shared } from '@/lib/core/runtime';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { extractTemplate, pgliteTemplate } from './cluster-template';
import { acquireLock } from './lock';
import { trimmedFsBundle } from './pglite-files';
import { databasesToFreeze } from './freeze';
import * as schema from './schema';
import { onShutdown } from '@/lib/shutdown';

/** Both drivers expose the same Drizzle query API; the node-postgres type stands for both. */
type RootDb = NodePgDatabase<typeof schema>;
/** A transaction, usable wherever a database is. */
export type Tx = Parameters<Parameters<RootDb['transaction']>[0]>[0];
/** What domain functions take: the database or a transaction of it. */
export type Db = RootDb | Tx;

export type Database = {
  db: RootDb;
  driver: 'pglite' | 'postgres';
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The embedded database only: a consistent copy of its data directory (a gzipped tarball), taken while it serves. */
  dump?(): Promise<Blob>;
};

/** What the embedded database's own client does beyond SQL: COPY from a blob (bulk rows at a third of an INSERT's cost). */
type CopyClient = { query(text: string, params: unknown[], options: { blob: Blob }): Promise<unknown> };

/** The embedded database's client under `db`, for COPY; null on PostgreSQL (or for a transaction). */
export function embeddedClient(db: Db): CopyClient | null {
  const client = (db as { $client?: object }).$client;
  return client && 'dumpDataDir' in client ? (client as unknown as CopyClient) : null;
}

export type OpenOptions =
  | {
      driver: 'pglite';
      dataDir: string;
      port?: number | null;
      /** The age (in transactions) past which the cluster's other databases are frozen at the start (./freeze.ts); tests set it low. */
      freezeAge?: number;
    }
  | { driver: 'postgres'; url: string; poolSize?: number };

export const migrationsFolder = path.join(process.cwd(), 'lib/db/migrations');

/** Arbitrary constant naming Triad's migration lock among PostgreSQL advisory locks. */
const MIGRATION_LOCK_ID = 727_166_001;

/**
 * Opens a database and applies pending migrations. PGlite is initialised in a temporary
 * directory and renamed into place, so an interrupted first start leaves nothing half-made.
 */
export async function openDatabase(options: OpenOptions): Promise<Database> {
  return options.driver === 'pglite' ? openPglite(options.dataDir, options.port ?? null, options.freezeAge) : openPostgres(options);
}

/** True when an embedded database's data directory has no database yet: a first start (the driver is PGlite). */
export const isNewEmbeddedDataDir = (c: { driver: string; dataDir: string }): boolean =>
  c.driver === 'pglite' && !fs.existsSync(path.join(c.dataDir, 'pglite'));

async function openPglite(dataDir: string, port: number | null, freezeAge?: number): Promise<Database> {
  const release = acquireLock(dataDir, port);
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { drizzle } = await import('drizzle-orm/pglite');
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    const pgDir = path.join(dataDir, 'pglite');
    for (const leftover of fs.readdirSync(dataDir).filter((f) => f.startsWith('.pglite-init-'))) {
      fs.rmSync(path.join(dataDir, leftover), { recursive: true, force: true });
    }
    if (!fs.existsSync(pgDir)) {
      const tmp = fs.mkdtempSync(path.join(dataDir, '.pglite-init-'));
      await createCluster(tmp);
      fs.renameSync(tmp, pgDir);
    } else if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) {
      throw new Error(`${pgDir} exists but is not a database directory; move it away and start again`);
    }
    // PGlite runs one backend; PostgreSQL's default of 100 connections sized its shared lock and process
    // tables for a hundred, 4 MB of resident WebAssembly memory (docs/benchmarks.md).
    const fsBundle = trimmedFsBundle();
    const start = async (database?: string) => {
      const c = new PGlite(pgDir, {
        fsBundle,
        ...(database && { database }),
        startParams: [
          ...PGlite.defaultStartParams,
          ...['-c', `shared_buffers=${config().TRIAD_PGLITE_SHARED_BUFFERS_MB}MB`, '-c', 'max_connections=8'],
        ],
      });
      await c.waitReady;
      return c;
    };
    let client = await start();
    // template0 and template1, past their age, frozen by a backend of their own (./freeze.ts).
    const stale = await databasesToFreeze(client, freezeAge);
    if (stale.length) {
      const started = performance.now();
      await client.close();
      for (const name of stale) {
        const other = await start(name);
        await other.exec('vacuum freeze');
        await other.close();
      }
      client = await start();
      log.info('freeze', { databases: stale.join(' '), ms: Math.round(performance.now() - started) });
    }
    const db = drizzle({ client, schema }) as unknown as RootDb;
    await migrate(db as never, { migrationsFolder });
    return {
      db,
      driver: 'pglite',
      ping: async () => void (await client.query('select 1')),
      // CHECKPOINT writes the shared buffers out; the dump then runs with no statement between (PGlite's own lock).
      dump: async () => {
        await client.query('CHECKPOINT');
        return client.dumpDataDir('gzip');
      },
      close: async () => {
        try {
          if (!client.closed) await client.close();
        } finally {
          release();
        }
      },
    };
  } catch (e) {
    release();
    throw e;
  }
}

/**
 * Makes a new PGlite data directory: written out from the build's template (./cluster-template.ts,
 * a fraction of a second), or where there is none (a build by other means) by PGlite's initdb in a
 * short-lived child process (about 7 s). Done in this process, initdb would leave about 200 MB resident
 * for good: PGlite's initdb instance is not freed by close() (measured with npm run bench:memory). The
 * child resolves PGlite from the working directory, as this process does. (`template`: the build's; a
 * test names a missing one to take the initdb path.)
 */
export async function createCluster(dir: string, template = pgliteTemplate): Promise<void> {
  if (fs.existsSync(template)) return extractTemplate(fs.readFileSync(template), dir);
  const { spawn } = await import('node:child_process');
  const script = `import { PGlite } from '@electric-sql/pglite'; const db = new PGlite(process.argv[1]); await db.waitReady; await db.close();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, dir], {
    cwd: process.cwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-10_000);
  });
  const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('exit', resolve));
  if (code !== 0)
    throw new Error(`could not create the embedded database in ${dir} (initdb exited with ${code}): ${stderr.trim().slice(-2000)}`);
}

async function openPostgres(options: { url: string; poolSize?: number }): Promise<Database> {
  const { Pool } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const { migrate } = await import('drizzle-orm/node-postgres/migrator');
  // Fail fast when the server cannot be reached (no request waits more than about 2 s for a connection),
  // and find dead connections: the pool replaces them by itself once the server is back.
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 2000,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its server must not crash the process.
  pool.on('error', () => {});
  const conn = await pool.connect();
  try {
    // Several instances may start at once: one applies the migrations, the others wait.
    await conn.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migrate(drizzle({ client: conn, schema }), { migrationsFolder });
  } finally {
    await conn.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
    conn.release();
  }
  const db = drizzle({ client: pool, schema });
  return {
    db,
    driver: 'postgres',
    ping: async () => void (await db.execute(sql`select 1`)),
    close: () => pool.end(),
  };
}

declare module '@/lib/core/runtime' {
  interface Runtime {
    database: { opening?: Promise<Database> };
  }
}

/**
 * The process-wide database, opened on first use with the configuration of the environment.
 * Shared (lib/core/runtime.ts): Next loads this module more than once (instrumentation, each route), the server once more.
 */
export function database(): Promise<Database> {
  const g = shared('database', () => ({}));
  if (!g.opening) {
    const c = config();
    const opening = openDatabase(
      c.driver === 'postgres' ? { driver: 'postgres', url: c.DATABASE_URL! } : { driver: 'pglite', dataDir: c.dataDir, port: c.PORT },
    );
    g.opening = opening;
    opening.then(
      (d) => onShutdown('database', () => d.close()),
      () => {
        g.opening = undefined;
      },
    );
  }
  return g.opening;
}

/** Shortcut for the Drizzle handle of the process-wide database. */
export async function getDb(): Promise<RootDb> {
  return (await database()).db;
}
