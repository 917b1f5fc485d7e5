// Starts a production Triad server for the Playwright suite on a fresh store:
//   node scripts/test-server.mjs --port N            embedded PGlite in a fresh temporary data directory
//   node scripts/test-server.mjs --port N --postgres a fresh database on TEST_DATABASE_URL's server
// and removes the store again when it is stopped. Paths and names derive from the port, so the
// Playwright config and the tests agree on them (see scripts/lib/test-env.mjs).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import pg from 'pg';
import { e2eDataDir, e2eDatabaseUrl, e2eLogFile, E2E_SECRET_KEY, E2E_SECRETS_FILE, UPSTREAM_URL } from './lib/test-env.mjs';
import { serverArgs, serverEnv } from './server-args.mjs';

const args = process.argv.slice(2);
const port = Number(args[args.indexOf('--port') + 1]);
const postgres = args.includes('--postgres');
if (!port) throw new Error('usage: test-server.mjs --port N [--postgres]');

const dataDir = e2eDataDir(port);
fs.rmSync(dataDir, { recursive: true, force: true });
fs.mkdirSync(dataDir, { recursive: true });
const env = {
  ...process.env,
  PORT: String(port),
  TRIAD_HOST: '127.0.0.1',
  TRIAD_DATA_DIR: dataDir,
  TRIAD_LOG_LEVEL: 'info',
  TRIAD_UPSTREAM_URL: UPSTREAM_URL,
  TRIAD_GUIDE_DELAY_MS: '2',
  // The whole suite is one client address (127.0.0.1), and its tests fail passcodes and JWTs on
  // purpose: per-address limits at their defaults would make tests fail each other. The limits
  // themselves are tested at their defaults on servers of their own (e2e/lifecycle/limits.spec.ts).
  TRIAD_ADDRESS_RATE_PER_S: '100000',
  TRIAD_ACCESS_FAILURES_PER_MIN: '100000',
};
delete env.DATABASE_URL;

async function withAdmin(fn) {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
const dbName = postgres ? new URL(e2eDatabaseUrl(port)).pathname.slice(1) : null;
if (postgres) {
  if (!process.env.TEST_DATABASE_URL) throw new Error('--postgres needs TEST_DATABASE_URL');
  await withAdmin(async (c) => {
    await c.query(`drop database if exists "${dbName}" with (force)`);
    await c.query(`create database "${dbName}"`);
  });
  env.DATABASE_URL = e2eDatabaseUrl(port);
  env.TRIAD_SECRET_KEY = E2E_SECRET_KEY;
  // The API suite runs twice: against the PGlite server with the chat route dispatched directly
  // (the default), and here with every request through Next's router, so both paths are tested.
  env.TRIAD_DIRECT_ROUTES = '0';
}

// The server's whole output goes to a log file that the last test of the run searches for secrets.
const logFile = e2eLogFile(port);
fs.writeFileSync(logFile, '');
if (!postgres) fs.writeFileSync(E2E_SECRETS_FILE, '');
const log = fs.openSync(logFile, 'a');
const child = spawn(process.execPath, serverArgs(), { env: serverEnv(env), stdio: ['ignore', log, log] });
let cleaning = false;
async function cleanup(code) {
  if (cleaning) return;
  cleaning = true;
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (postgres) await withAdmin((c) => c.query(`drop database if exists "${dbName}" with (force)`)).catch(() => {});
  process.exit(code ?? 0);
}
child.on('exit', (code) => void cleanup(code));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill('SIGTERM'));
