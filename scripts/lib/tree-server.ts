// A built checkout's server for the benchmarks that measure one tree against another (`npm run
// bench:chat-gc`, `bench:chat-ab`): its own build, started with npm start's node flags on a fresh
// embedded database, serving the model server at `upstreamUrl`, with an API key made by its own admin CLI.
// It logs warnings and errors only (BENCH_LOG_LEVEL=info: each request's access line too, as npm start does).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../server-args.mjs';
import { freePort, freshDataDir, localServerEnv, type RunningServer, spawnServer } from './server';

export async function startTreeServer(
  root: string,
  upstreamUrl: string,
  extraFlags: string[] = [],
): Promise<{ server: RunningServer; auth: Record<string, string> }> {
  const dataDir = freshDataDir();
  const port = await freePort();
  const server = await spawnServer([...SERVER_NODE_FLAGS, ...extraFlags, path.join(root, '.next/triad/server.js')], {
    cwd: root,
    port,
    dataDir,
    env: localServerEnv(port, dataDir, {
      TRIAD_UPSTREAM_URL: upstreamUrl,
      TRIAD_DEMO: '0',
      TRIAD_LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    }),
  });
  if (!server.output().includes('"msg":"ready"')) throw new Error(`the server of ${root} did not start:\n${server.output()}`);
  // The tree's own admin CLI (its own schema).
  const admin = (args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/admin.ts'), ...args, '--json'], {
        cwd: root,
        env: { ...process.env, TRIAD_DATA_DIR: dataDir, TRIAD_LOG_LEVEL: 'warn' },
      }).toString(),
    ) as Record<string, string>;
  const { org_id } = admin(['org', 'create', '--name', 'Bench']);
  const { api_key } = admin(['apikey', 'create', '--org', org_id!, '--rpm', '1000000']);
  return { server, auth: { authorization: `Bearer ${api_key}` } };
}
