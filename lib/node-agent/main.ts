import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { NATIVE_ENDPOINTS, type NativeEndpoint } from '@/lib/chat/capabilities';
import { helloFrame } from '@/lib/tunnel/protocol';
import { AGENT_VERSION, AgentStopped, startAgent } from './agent';
import { agentTracing } from './tracing';

/*
 * The node agent's command line: `npm run node:connect -- …` from a checkout, or
 * `node triad-node.mjs …` with the one file Triad serves at /downloads/triad-node.mjs.
 */
const HELP = `triad-node — serve a model server's models through Triad from this machine

Usage:
  TRIAD_PARTNER_SECRET=<secret> node triad-node.mjs --server URL --node ID --upstream URL [options]

It dials out to Triad (no port to open), registers the node under your partner, announces the
models of your model server, and serves the requests Triad routes to it. Triad counts what it
serves: the node's unit_shared and usd_earned grow with it. Note: the prompts of those requests
pass through this machine and its model server.

Required:
  --server URL           Triad's address, e.g. https://triad.example.com (several: repeat the flag
                         or separate with commas; tried in turn when one cannot be reached)
  --node ID              the node's id under your partner (its partner_node_id), e.g. gpu-1
  --upstream URL         your OpenAI-compatible model server, e.g. http://127.0.0.1:11434/v1
                         (Ollama), http://127.0.0.1:8000/v1 (vLLM)

Options:
  --name NAME            the node's display name (when it is registered)
  --models a,b           serve only these of the model server's models (default: all it lists)
  --endpoints a,b        the APIs your model server speaks natively beyond chat completions:
                         responses (OpenAI's Responses API), messages (Anthropic's Messages API);
                         requests of those are passed through to it rather than translated
  --max-concurrency N    requests served at once (default 4)
  --secret-file PATH     read the partner secret from this file instead of TRIAD_PARTNER_SECRET
  --status-every S       print the state every S seconds (default 60; 0: only on changes)
  -h, --help             this help
  --version              the agent's version

Traces: with OTEL_EXPORTER_OTLP_ENDPOINT set (OTLP over HTTP; OTEL_EXPORTER_OTLP_PROTOCOL
http/protobuf or http/json; OTEL_SERVICE_NAME, default triad-node), each request gets a span in
the trace Triad sent it with, exported to that collector.

The partner secret is never a flag (process lists show arguments): TRIAD_PARTNER_SECRET or
--secret-file. SIGTERM or Ctrl-C finishes what is in flight and stops; a second one stops at once.

Exit status: 0 stopped by SIGTERM or Ctrl-C; 1 stopped by Triad (the secret refused or rotated,
another agent connected as this node, its hello refused); 2 a wrong command line or no secret;
3 the model server did not answer or list its models at start (start the agent again once it is up).
`;

function fail(message: string, code = 2): never {
  console.error(`triad-node: ${message}`);
  process.exit(code);
}

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        server: { type: 'string', multiple: true },
        node: { type: 'string' },
        upstream: { type: 'string' },
        name: { type: 'string' },
        models: { type: 'string' },
        endpoints: { type: 'string' },
        'max-concurrency': { type: 'string' },
        'secret-file': { type: 'string' },
        'status-every': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (e) {
    fail(`${(e as Error).message} (see --help)`);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  if (v.version) {
    console.log(AGENT_VERSION);
    process.exit(0);
  }
  const url = (flag: string, value: string) => {
    try {
      const u = new URL(value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
      return value.replace(/\/+$/, '');
    } catch {
      return fail(`--${flag}: "${value}" is not an http(s) URL`);
    }
  };
  const servers = (v.server ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  if (!servers.length) fail('--server is required (see --help)');
  if (!v.node?.trim()) fail('--node is required (see --help)');
  // As Triad checks them in the hello (lib/tunnel/protocol.ts).
  for (const flag of ['node', 'name'] as const) {
    const value = v[flag]?.trim();
    const issue = value ? helloFrame.shape[flag].safeParse(value).error?.issues[0] : undefined;
    if (issue) fail(`--${flag}: ${issue.message}`);
  }
  if (!v.upstream) fail('--upstream is required (see --help)');
  const maxConcurrency = Number(v['max-concurrency'] ?? 4);
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1 || maxConcurrency > 1024)
    fail('--max-concurrency: an integer from 1 to 1024');
  const statusEvery = Number(v['status-every'] ?? 60);
  if (!Number.isFinite(statusEvery) || statusEvery < 0) fail('--status-every: a number of seconds (0: only on changes)');
  const endpoints = (v.endpoints ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const e of endpoints)
    if (!(NATIVE_ENDPOINTS as readonly string[]).includes(e)) fail(`--endpoints: "${e}" is not one of ${NATIVE_ENDPOINTS.join(', ')}`);
  let secret = process.env.TRIAD_PARTNER_SECRET?.trim() ?? '';
  if (v['secret-file']) {
    try {
      secret = fs.readFileSync(v['secret-file'], 'utf8').trim();
    } catch (e) {
      fail(`--secret-file: cannot read ${v['secret-file']} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  if (!secret) fail('the partner secret is needed: set TRIAD_PARTNER_SECRET or give --secret-file');
  return {
    servers: servers.map((s) => url('server', s)),
    node: v.node!.trim(),
    name: v.name?.trim() || undefined,
    upstream: url('upstream', v.upstream),
    models: v.models
      ? v.models
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean)
      : undefined,
    endpoints: [...new Set(endpoints)] as NativeEndpoint[],
    maxConcurrency,
    secret,
    statusEvery,
  };
}

const o = options();
const stamp = () => new Date().toISOString().slice(11, 19);
const say = (line: string) => console.log(`${stamp()} ${line}`);
// Its own spans, when OTEL_EXPORTER_OTLP_ENDPOINT says where to send them (design §18).
const tracing = await agentTracing(process.env, o.node, AGENT_VERSION).catch((e: Error) => {
  say(`traces not exported: ${e.message}`);
  return null;
});
if (tracing) say('exporting traces (OTEL_EXPORTER_OTLP_ENDPOINT)');
const agent = startAgent({ ...o, say, tracing });
const status = () => {
  const s = agent.state;
  return `${s.connected ? 'connected' : 'not connected'} · ${s.models.length} model(s) · in flight ${s.inFlight} · served ${s.served} · tokens ${s.tokens}`;
};
let last = '';
const report = (always: boolean) => {
  const now = status();
  if (always || now !== last) say(now);
  last = now;
};

try {
  await agent.start();
} catch (e) {
  fail((e as Error).message, 3); // the model server: try again once it is up
}
const every = o.statusEvery > 0 ? setInterval(() => report(true), o.statusEvery * 1000) : setInterval(() => report(false), 5000);
every.unref();
let signals = 0;
const onSignal = () => {
  if (signals++ === 0) say(`finishing ${agent.state.inFlight} request(s) in flight, then stopping (again to stop at once)`);
  agent.drain();
};
process.on('SIGTERM', onSignal);
// Started by a process with an IPC channel (Triad's demo): it stops when that process ends, however it ends.
if (process.send) process.on('disconnect', () => process.exit(0));
process.on('SIGINT', onSignal);
try {
  await agent.done;
  await tracing?.shutdown();
  say(`stopped · ${status()}`);
  process.exit(0);
} catch (e) {
  if (e instanceof AgentStopped) fail(e.message, 1);
  fail(`stopped: ${(e as Error).message}`, 1);
}
