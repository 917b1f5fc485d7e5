import { ownUrl } from '@/lib/config';
import { shared } from '@/lib/core/runtime';
import { log } from '@/lib/log';
import { startAgent } from '@/lib/node-agent/agent';
import { holdsTunnel } from '@/lib/tunnel/registry';

/*
 * The demo's node agents (design §14): for each demo node that serves, the node agent's code — the
 * same `startAgent` the file partners download runs — dialling in to this server with the demo
 * partner's secret and serving its demo model server (./demo-servers.ts). They run in this process:
 * as child processes they were three Node processes of 75 MB each beside the server. What they say
 * goes to the log.
 */
type Agent = ReturnType<typeof startAgent>;
type Demo = { agent: Agent | null; retry: NodeJS.Timeout | null; attempts: number };
type Agents = Map<string, Demo>;
declare module '@/lib/core/runtime' {
  interface Runtime {
    demoAgents: Agents;
  }
}
const agents = () => shared('demoAgents', () => new Map() as Agents);

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * Starts the agent of a demo node (no-op when it runs). An agent whose model server did not answer at
 * start (this process was busy: a stall of five seconds as it began) is started again after a while,
 * 1 s doubling to 30 s, until it is stopped; one that Triad stopped (its secret rotated, say) stays stopped.
 */
export function startDemoAgent(node: string, upstream: string, model: string, secret: string): void {
  const all = agents();
  if (all.has(node)) return;
  const demo: Demo = { agent: null, retry: null, attempts: 0 };
  all.set(node, demo);
  const say = (line: string) => log.info('demo agent', { node, line });
  const run = () => {
    demo.retry = null;
    const agent = startAgent({ servers: [ownUrl()], node, upstream, models: [model], maxConcurrency: 4, secret, say });
    demo.agent = agent;
    agent.done.then(
      () => undefined,
      (e: Error) => {
        say(`stopped: ${e.message}`);
        if (all.get(node) === demo && demo.agent === agent) all.delete(node);
      },
    );
    agent.start().catch((e: Error) => {
      say(e.message);
      agent.stop();
      if (all.get(node) !== demo || demo.agent !== agent) return; // stopped meanwhile
      const ms = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** demo.attempts++);
      log.info('demo agent starts again', { node, inMs: ms });
      demo.retry = setTimeout(run, ms);
      demo.retry.unref();
    });
  };
  run();
}

/** Stops the agent of a demo node (it finishes what is in flight, for 5 s at most); false when none ran. */
export async function stopDemoAgent(node: string): Promise<boolean> {
  const demo = agents().get(node);
  if (!demo) return false;
  agents().delete(node);
  const waiting = demo.retry !== null; // (its last start failed: nothing runs until the next)
  if (demo.retry) clearTimeout(demo.retry);
  const agent = demo.agent;
  if (!agent || waiting) return false;
  agent.drain();
  const late = setTimeout(() => agent.stop(), 5000);
  await agent.done.catch(() => undefined);
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
