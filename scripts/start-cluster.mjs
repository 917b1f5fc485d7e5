// `npm run start:cluster`: N instances of Triad (default 2) on one PostgreSQL, for local trials of a
// scaled-out deployment. Needs DATABASE_URL and TRIAD_SECRET_KEY (all instances share them); REDIS_URL
// makes the rate limits shared. Instance i listens on BASE_PORT + i (default 3000, 3001, …) with its
// own data directory TRIAD_DATA_DIR/instance-i. Put any load balancer in front.
//   DATABASE_URL=postgres://… TRIAD_SECRET_KEY=$(openssl rand -hex 32) npm run start:cluster -- --instances 2 --base-port 3000
import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildIfNeeded } from './build-if-needed.mjs';
import { positiveNumber, scriptOptions } from './lib/cli.mjs';
import { serverArgs, serverEnv } from './server-args.mjs';

const USAGE = `usage: npm run start:cluster -- [--instances N] [--base-port P] [--no-build]
  --instances N   how many servers (2)
  --base-port P   the first one's port, the others the next ones (PORT, else 3000)
  --no-build      start the build as it is
Needs DATABASE_URL and TRIAD_SECRET_KEY (every instance shares them); REDIS_URL shares the rate limits.`;
const options = scriptOptions(USAGE, { instances: { type: 'string' }, 'base-port': { type: 'string' }, 'no-build': { type: 'boolean' } });
const instances = positiveNumber('instances', options.instances, 2, { whole: true });
const basePort = positiveNumber('base-port', options['base-port'], Number(process.env.PORT || 3000), { whole: true });
for (const name of ['DATABASE_URL', 'TRIAD_SECRET_KEY']) {
  if (!process.env[name]) {
    console.error(`start:cluster: ${name} must be set (every instance shares it)`);
    process.exit(1);
  }
}
if (!options['no-build']) buildIfNeeded();
const dataDir = path.resolve(process.env.TRIAD_DATA_DIR || './data');

const children = Array.from({ length: instances }, (_, i) =>
  spawn(process.execPath, serverArgs(), {
    env: serverEnv({ ...process.env, PORT: String(basePort + i), TRIAD_DATA_DIR: path.join(dataDir, `instance-${i}`) }),
    stdio: 'inherit',
  }),
);
let exiting = false;
const stop = (signal) => {
  exiting = true;
  for (const c of children) if (c.exitCode === null) c.kill(signal);
};
for (const c of children) {
  c.on('exit', (code) => {
    if (!exiting) {
      console.error(`start:cluster: an instance exited (${code}); stopping the others`);
      stop('SIGTERM');
    }
    if (children.every((x) => x.exitCode !== null || x.signalCode !== null)) process.exit(exiting ? 0 : 1);
  });
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
