import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { ownUrl } from '@/lib/config';
import { shared } from '@/lib/core/runtime';
import { log } from '@/lib/log';
import { agentBundle } from '@/lib/node-agent/bundle';
import { holdsTunnel } from '@/lib/tunnel/registry';

/*
 * The demo's node agents (design §14): one child process per demo node that serves, the same
 * bundled agent a partner downloads, dialling in to this server with the demo partner's secret and
 * serving its demo model server (./demo-servers.ts). What they print goes to the log.
 */
type Agents = Map<string, ChildProcess>;
declare module '@/lib/core/runtime' {
  interface Runtime {
    demoAgents: Agents;
  }
}
const agents = () => shared('demoAgents', () => new Map() as Agents);

/** Starts the agent of a demo node (no-op when it runs); false when the agent is not built. */
export function startDemoAgent(node: string, upstream: string, model: string, secret: string): boolean {
  const all = agents();
  if (all.get(node)?.exitCode === null) return true;
  const file = agentBundle();
  if (!fs.existsSync(file)) {
    log.warn('demo agents not started: the node agent is not built (npm run build)', { file });
    return false;
  }
  const proc = spawn(
    process.execPath,
    [file, '--server', ownUrl(), '--node', node, '--upstream', upstream, '--models', model, '--status-every', '0'],
    {
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', TRIAD_PARTNER_SECRET: secret },
      // An IPC channel: the agent stops when this process ends, even by kill -9 (its channel closes).
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  proc.channel?.unref(); // (the channel alone keeps no one waiting)
  const relay = (d: Buffer) => {
    for (const line of d.toString().split('\n'))
      if (line.trim()) log.info('demo agent', { node, line: line.replace(/^\d\d:\d\d:\d\d /, '') });
  };
  proc.stdout!.on('data', relay);
  proc.stderr!.on('data', relay);
  proc.on('exit', () => {
    if (all.get(node) === proc) all.delete(node);
  });
  all.set(node, proc);
  return true;
}

/** Stops the agent of a demo node (it finishes what is in flight); false when none ran. */
export async function stopDemoAgent(node: string): Promise<boolean> {
  const proc = agents().get(node);
  if (!proc || proc.exitCode !== null) return false;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const late = setTimeout(() => proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(late);
  return true;
}

/** Resolves once the tunnel of `providerId` is held here (the agent connected), or after `ms`. */
export async function tunnelHeld(providerId: string, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!holdsTunnel(providerId)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}
