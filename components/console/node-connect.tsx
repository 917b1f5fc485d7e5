'use client';

import type { NodeTunnel } from '@/lib/client/console';

/* A node that dials in (design §14), on the Partners page and a node's statistics page. */

/** A node's tunnel, when its agent ever dialled in: connected since, models, in flight, served today. */
export function TunnelState({ tunnel }: { tunnel: NodeTunnel | undefined }) {
  if (!tunnel) return null;
  const since = tunnel.connected_since ? new Date(tunnel.connected_since).toLocaleString() : null;
  return (
    <span data-testid="tunnel-state" className="text-xs text-slate-600">
      {since ? (
        <>
          <span className="font-medium text-emerald-700">agent connected</span> since {since} · {tunnel.models.length} model(s) ·{' '}
          {tunnel.in_flight} in flight · {tunnel.served_today} served today
        </>
      ) : (
        <>
          <span className="font-medium text-slate-500">agent not connected</span> · {tunnel.served_today} served today
        </>
      )}
    </span>
  );
}

/** How to connect a node from its own machine: the agent from this server, and the command with this server's address. */
export function ConnectPanel({ node, chosen }: { node: string; chosen: boolean }) {
  const origin = typeof window === 'undefined' ? 'https://TRIAD' : window.location.origin;
  const commands = [
    `curl -fO ${origin}/downloads/triad-node.mjs`,
    `export TRIAD_PARTNER_SECRET=<this partner's secret>`,
    `node triad-node.mjs --server ${origin} --node ${node} --upstream http://127.0.0.1:11434/v1`,
  ].join('\n');
  return (
    <details open={chosen} className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm" aria-label="Connect a node">
      <summary className="cursor-pointer font-medium">Connect a node{chosen ? `: ${node}` : ''}</summary>
      <p className="mt-2 text-slate-600">
        On the node&apos;s machine (Node.js 20 or later, beside its OpenAI-compatible model server: Ollama, vLLM, llama.cpp), download the
        agent from this server and run it. It dials out (no port to open), registers the node, and serves its models through Triad; the node
        earns for what it serves. It sees the prompts routed to it. See docs/partners.md.
      </p>
      <pre data-testid="connect-commands" className="mt-2 overflow-x-auto rounded bg-code p-3 font-mono text-xs text-code-fg">
        {commands}
      </pre>
    </details>
  );
}
