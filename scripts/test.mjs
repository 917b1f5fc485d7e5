// `npm test`: every test, step by step, with each step's time printed at the end (and at a failure).
// `node scripts/test.mjs STEP…` runs some steps only: CI runs the whole suite on Node 24 and parts of it
// on the older Node versions (.ci/run).
import { spawnSync } from 'node:child_process';

/** Each step: what it runs (an npm script, or a command run the same way). */
const STEPS = {
  lint: 'npm run lint',
  typecheck: 'npm run typecheck',
  unit: 'npm run test:unit',
  // HTTP, browser and lifecycle tests against built servers (PGlite, and PostgreSQL with TEST_DATABASE_URL).
  e2e: 'npm run test:e2e',
  crash: 'npm run test:crash',
  // Parts of e2e, for the other Node versions: the HTTP API suites; those and the lifecycle suite (every
  // test of the server but the browser's); the node agent's.
  api: "npm run test:e2e -- --project='api*'",
  server: "npm run test:e2e -- --project='api*' --project=lifecycle",
  agent: 'npm run test:e2e -- --project=lifecycle lifecycle/tunnels.spec.ts',
};
const DEFAULT = ['lint', 'typecheck', 'unit', 'e2e', 'crash'];

const asked = process.argv.slice(2);
const unknown = asked.filter((s) => !(s in STEPS));
if (unknown.length) {
  console.error(`test: unknown step ${unknown.join(', ')} (steps: ${Object.keys(STEPS).join(', ')})`);
  process.exit(2);
}
const steps = asked.length ? asked : DEFAULT;

const times = [];
const seconds = (ms) =>
  ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
const summary = () => times.map(([step, ms, ok]) => `${step} ${seconds(ms)}${ok ? '' : ' (failed)'}`).join(' · ');

console.log(`test: ${steps.join(', ')} on Node ${process.version}`);
for (const step of steps) {
  const started = Date.now();
  const { status, signal } = spawnSync(STEPS[step], { shell: true, stdio: 'inherit' });
  const ok = status === 0;
  times.push([step, Date.now() - started, ok]);
  if (!ok) {
    console.error(`test: ${step} failed (${signal ?? `exit code ${status}`}); times: ${summary()}`);
    process.exit(status || 1);
  }
}
console.log(`test: all steps passed on Node ${process.version}; times: ${summary()}`);
