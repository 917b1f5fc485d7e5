import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { shared } from '@/lib/core/runtime';
import { config } from '@/lib/config';
import { guideAnswer } from '@/lib/providers/guide';
import { type ChatRequest, chatRequestSchema, plainMessages } from '@/lib/chat/schema';
import { countPromptTokens, countTokens } from '@/lib/chat/tokens';
import { log } from '@/lib/log';
import { onShutdown } from '@/lib/shutdown';

/*
 * The demo's model servers (issue: partner nodes that serve): small OpenAI-compatible servers that
 * `npm start` runs in demo mode on free local ports, each standing for one demo partner node. They
 * answer with the built-in guide under one shared model name — they are not language models and say
 * so — so that routing, failover and earnings can be seen without a model. `npm run admin -- demo
 * node stop|start <node>` stops and starts one (through the running server).
 */
export const DEMO_MODEL = 'triad-demo';
/** The demo nodes that serve, with their provider's weight and price (USD per 1 000 tokens). */
export const DEMO_SERVERS = [
  { node: 'demo-node-001', weight: 2, price: '0.002' },
  { node: 'demo-node-002', weight: 1, price: '0.0015' },
  { node: 'demo-node-003', weight: 1, price: '0.001' },
] as const;

type DemoServer = { node: string; port: number; server: http.Server | null };
declare module '@/lib/core/runtime' {
  interface Runtime {
    demoServers: Map<string, DemoServer>;
  }
}
const servers = () =>
  shared('demoServers', () => {
    onShutdown('demo-servers', () => Promise.all([...servers().keys()].map((n) => stopDemoServer(n))).then(() => {}));
    return new Map<string, DemoServer>();
  });

function handler(node: string) {
  const delayMs = config().TRIAD_GUIDE_DELAY_MS;
  return async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      return send(200, { object: 'list', data: [{ id: DEMO_MODEL, object: 'model', created: 1_767_225_600, owned_by: node }] });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions')
      return send(404, {
        error: { message: `${path} is not served: a demo model server answers chat completions only`, type: 'invalid_request_error' },
      });
    let raw = '';
    for await (const part of req) {
      raw += part;
      if (raw.length > 8 * 1024 * 1024) return send(413, { error: { message: 'too large', type: 'invalid_request_error' } });
    }
    let body;
    try {
      body = chatRequestSchema.parse(JSON.parse(raw));
    } catch {
      return send(400, { error: { message: 'not a chat completion request', type: 'invalid_request_error' } });
    }
    if (body.model !== DEMO_MODEL) return send(404, { error: { message: `model ${body.model} not found`, type: 'invalid_request_error' } });
    const messages = plainMessages(body);
    const { content, calls } = demoReply(node, body);
    const prompt = countPromptTokens(messages);
    const completion =
      countTokens(content ?? '') + calls.reduce((n, c) => n + countTokens(c.function.name) + countTokens(c.function.arguments), 0);
    const finish = calls.length ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    const id = `chatcmpl-${randomBytes(9).toString('base64url')}`;
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      return send(200, {
        id,
        object: 'chat.completion',
        created,
        model: DEMO_MODEL,
        choices: [
          { index: 0, message: { role: 'assistant', content, ...(calls.length ? { tool_calls: calls } : {}) }, finish_reason: finish },
        ],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: DEMO_MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: content === null ? null : '' }));
    for (const piece of content?.match(/\s*\S+/g) ?? []) {
      if (res.destroyed) return;
      if (delayMs) await sleep(delayMs);
      res.write(chunk({ content: piece }));
    }
    // A tool call as models stream it: its id and name, then its arguments in fragments.
    for (const [index, call] of calls.entries()) {
      res.write(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
      for (const part of call.function.arguments.match(/.{1,12}/gs) ?? [])
        res.write(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
    res.write(chunk({}, finish));
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: DEMO_MODEL, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  };
}

type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

/**
 * What a demo node answers: the guide's quote for the user's last words; with a tool they ask for
 * (below), a call of it with arguments made from its JSON schema, so that tool calls can be seen
 * without a model; after the tool's results, what they said; with a JSON response format, JSON.
 */
function demoReply(node: string, body: ChatRequest): { content: string | null; calls: ToolCall[] } {
  const messages = plainMessages(body);
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(messages[i]!.content);
  const question = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const words = lastWords(body);
  const tool = results.length ? undefined : toolAskedFor(body, words);
  if (tool) {
    const args = JSON.stringify(exampleOf(tool.function.parameters ?? { type: 'object' }, words));
    return {
      content: null,
      calls: [{ id: `call_${randomBytes(6).toString('hex')}`, type: 'function', function: { name: tool.function.name, arguments: args } }],
    };
  }
  const format = body.response_format?.type;
  if (format === 'json_schema')
    return { content: JSON.stringify(exampleOf(body.response_format!.json_schema.schema ?? {}, question)), calls: [] };
  if (format === 'json_object') return { content: JSON.stringify({ node, question }), calls: [] };
  const said = results.length ? `The tool answered: ${results.join('; ')}\n\n` : '';
  // The guide quoted for the user's own words: an agent's reminder around them would pick its sections.
  const guide = guideAnswer(words || question);
  return { content: `(Served by ${node}, a demo model server: not a language model.)\n\n${said}${guide}`, calls: [] };
}

type OfferedTool = NonNullable<ChatRequest['tools']>[number];

/**
 * The offered tool a model would call, as far as a demo can tell: the one `tool_choice` names; else one
 * whose name the user's last words mention (a word of the name of four letters or more: `get_weather`
 * for "Weather in Paris?"; of a name with words beyond the common verbs, one of those: `TaskCreate` for
 * "Create a task", not Claude Code's `CronCreate` for "How do I create an API key?"); else, when
 * `tool_choice` is "required", the first. None when the choice is "none", or when it is "auto" (the
 * default) and no tool is mentioned: the demo then answers in text, as a model does that has no use for
 * a tool (an agent's dozens of tools offered with every "say hello" are not called at random).
 */
function toolAskedFor(body: ChatRequest, words: string): OfferedTool | undefined {
  const tools = body.tools ?? [];
  const choice = body.tool_choice;
  if (!tools.length || choice === 'none') return undefined;
  if (typeof choice === 'object') return tools.find((t) => t.function.name === choice.function.name);
  const mentioned = tools.find((t) => namingWords(t.function.name).some((w) => new RegExp(`\\b${w}`, 'i').test(words)));
  return mentioned ?? (choice === 'required' ? tools[0] : undefined);
}

/** Verbs many tools' names share: they name a tool only when its name has no other word (Claude Code's `Read`). */
const COMMON_VERBS = new Set(
  'create update delete remove list read write edit find search fetch show view make send check open close start stop kill exit'.split(' '),
);

/** The words of a tool's name that say which tool it is (`CronCreate`: cron; `Read`: read). */
function namingWords(name: string): string[] {
  const words = name
    .split(/[^A-Za-z]+|(?<=[a-z])(?=[A-Z])/)
    .filter((w) => w.length >= 4)
    .map((w) => w.toLowerCase());
  const own = words.filter((w) => !COMMON_VERBS.has(w));
  return own.length ? own : words;
}

/**
 * The user's last words: the last text part of the last user message, without the tagged blocks agents
 * put around them (Claude Code's `<system-reminder>…</system-reminder>`, Codex's `<environment_context>`).
 */
function lastWords(body: ChatRequest): string {
  const content = body.messages.findLast((m) => m.role === 'user')?.content;
  const text = typeof content === 'string' ? content : (content?.findLast((p) => p.type === 'text')?.text ?? '');
  return text.replace(/<([A-Za-z_-]+)>[\s\S]*?<\/\1>/g, ' ').trim();
}

/**
 * A value that fits a JSON schema, as a model would fill it in: an object's required properties (all of
 * them when it names none), strings from the question, numbers 1, the first of an enum.
 */
function exampleOf(schema: unknown, text: string): unknown {
  const s = (schema ?? {}) as {
    type?: string | string[];
    properties?: Record<string, unknown>;
    required?: string[];
    items?: unknown;
    enum?: unknown[];
    anyOf?: unknown[];
  };
  if (s.enum?.length) return s.enum[0];
  if (s.anyOf?.length) return exampleOf(s.anyOf[0], text);
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    const required = Array.isArray(s.required) ? s.required : null;
    const filled = Object.entries(s.properties ?? {}).filter(([k]) => !required || required.includes(k));
    return Object.fromEntries(filled.map(([k, v]) => [k, exampleOf(v, text)]));
  }
  if (type === 'array') return [exampleOf(s.items, text)];
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  return text.slice(0, 80);
}

/** Starts (or restarts, on its previous port when it is free) the demo server of `node`; resolves with its port. */
export async function startDemoServer(node: string): Promise<number> {
  const all = servers();
  const known = all.get(node);
  if (known?.server) return known.port;
  const server = http.createServer((req, res) => {
    handler(node)(req, res).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 5000;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  const port = await listen(known?.port ?? 0).catch(() => listen(0));
  all.set(node, { node, port, server });
  log.info('demo model server started', { node, port });
  return port;
}

/** Stops the demo server of `node` (its connections are cut, as when a machine goes away); false if it was not running. */
export async function stopDemoServer(node: string): Promise<boolean> {
  const s = servers().get(node);
  if (!s?.server) return false;
  const server = s.server;
  s.server = null;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  log.info('demo model server stopped', { node });
  return true;
}

export const demoServerUrl = (port: number) => `http://127.0.0.1:${port}/v1`;
