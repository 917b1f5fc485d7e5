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
type Agent = { proc: ChildProcess | null; retry: NodeJS.Timeout | null; attempts: number };
type Agents = Map<string, Agent>;
declare module '@/lib/core/runtime' {
  interface Runtime {
    demoAgents: Agents;
  }
}
const agents = () => shared('demoAgents', () => new Map() as Agents);

/** The agent's exit status when its model server could not be reached at start (lib/node-agent/main.ts). */
const UPSTREAM_NOT_READY = 3;
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * Starts the agent of a demo node (no-op when it runs); false when the agent is not built. An agent
 * that stops at start because its model server did not answer (this process was busy: its model
 * servers run in it) is started again after a while, 1 s doubling to 30 s, until it is stopped.
 */
export function startDemoAgent(node: string, upstream: string, model: string, secret: string): boolean {
  const all = agents();
  const known = all.get(node);
  if (known?.proc || known?.retry) return true;
  const file = agentBundle();
  if (!fs.existsSync(file)) {
    log.warn('demo agents not started: the node agent is not built (npm run build)', { file });
    return false;
  }
  const agent: Agent = known ?? { proc: null, retry: null, attempts: 0 };
  all.set(node, agent);
  const run = () => {
    agent.retry = null;
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
    proc.on('exit', (code) => {
      if (agent.proc !== proc) return;
      agent.proc = null;
      if (all.get(node) !== agent) return; // stopped meanwhile
      if (code !== UPSTREAM_NOT_READY) return void all.delete(node);
      const ms = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** agent.attempts++);
      log.info('demo agent starts again', { node, inMs: ms });
      agent.retry = setTimeout(run, ms);
      agent.retry.unref();
    });
    agent.proc = proc;
  };
  run();
  return true;
}

/** Stops the agent of a demo node (it finishes what is in flight); false when none ran. */
export async function stopDemoAgent(node: string): Promise<boolean> {
  const agent = agents().get(node);
  if (!agent) return false;
  agents().delete(node);
  if (agent.retry) clearTimeout(agent.retry);
  const proc = agent.proc;
  if (!proc || proc.exitCode !== null) return false; // (not running: stopped, or waiting to start again)
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
