import { z } from 'zod';
import type { ErrorExamples } from '@/lib/core/errors';
import { anthropicErrorBody, anthropicErrorExamples, anthropicErrorSchema } from '@/lib/errors/anthropic';
import { chatErrorBody, chatErrorExamples, chatErrorSchema } from '@/lib/errors/chat';
import { linkErrorBody, linkErrorExamples, linkErrorSchema } from '@/lib/errors/link';
import type { Auth } from '@/lib/http/auth';
import type { AnyDefinition } from '@/lib/http/route';
import { CLOSE, frame, HELLO_MS, PROTOCOL, TUNNEL_PATH } from '@/lib/tunnel/protocol';

/*
 * The OpenAPI 3.1 document, built by walking the route table (lib/server/routes.ts): each route's
 * definition gives its security (from its auth scheme), its parameters (path, and the query schema it
 * parses with), its body schema, its summary, tag and replies (`doc`), and its error format. This file
 * keeps only the frame: info, the security schemes, and how a definition becomes an operation; and
 * the one endpoint that is not a route, the node agents' WebSocket (its frames from lib/tunnel/protocol.ts).
 */
export type DocumentedRoute = { path: string; operations: { method: string; definition: AnyDefinition | null }[] };

const jsonSchema = (s: z.ZodType) => plain(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }));
const outputSchema = (s: z.ZodType) => plain(z.toJSONSchema(s, { io: 'output', unrepresentable: 'any' }));

/**
 * A schema without the bounds zod gives every integer (±2^53 − 1): they say nothing to a reader, and a
 * renderer takes them for the example ("created": -9007199254740991).
 */
function plain(schema: unknown): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'minimum' || k === 'maximum') && Math.abs(x as number) === Number.MAX_SAFE_INTEGER) continue;
      out[k] = walk(x);
    }
    return out;
  };
  return walk(schema) as Record<string, unknown>;
}

/** Each error format: its body's schema, its body, and what each status means (with an example), from its error module. */
const ERROR_FORMATS: Record<'chat' | 'anthropic' | 'link', { schema: z.ZodType; body: (e: never) => unknown; examples: ErrorExamples }> = {
  chat: { schema: chatErrorSchema, body: chatErrorBody, examples: chatErrorExamples },
  anthropic: { schema: anthropicErrorSchema, body: anthropicErrorBody, examples: anthropicErrorExamples },
  link: { schema: linkErrorSchema, body: linkErrorBody, examples: linkErrorExamples },
};

/** What each auth scheme accepts, as OpenAPI security requirements (any one of them). */
const SECURITY: Record<Auth, { [k: string]: string[] }[]> = {
  none: [],
  apiKey: [{ apiKey: [] }, { consoleSession: [] }],
  orgToken: [{ orgToken: [] }, { consoleSession: [] }],
  partner: [{ orgToken: [] }, { consoleSession: [] }],
  aliasAccess: [{}, { orgToken: [] }, { aliasJwt: [] }],
  local: [],
  admin: [{ adminSecret: [] }],
  instance: [{ adminToken: [] }, { consoleSession: [] }, { adminSecret: [] }],
  session: [{ consoleSession: [] }],
  sessionIfAny: [{}, { consoleSession: [] }],
};

let paths: Record<string, Record<string, unknown>> | undefined;

/** The document for a server at `serverUrl`; its paths are worked out from the routes once, at the first call. */
export function openApiDocument(routes: DocumentedRoute[], serverUrl = '/') {
  paths ??= { ...operationPaths(routes), [TUNNEL_PATH]: { get: tunnelOperation() } };
  return document(paths, serverUrl);
}

function operationPaths(routes: DocumentedRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { path, operations } of routes) {
    for (const { method, definition } of operations) {
      if (definition) (paths[path] ??= {})[method.toLowerCase()] = operation(path, definition);
    }
  }
  return paths;
}

function operation(path: string, definition: AnyDefinition) {
  const { doc } = definition;
  const parameters: unknown[] = [];
  for (const name of path.match(/(?<=\{)[a-z_]+(?=\})/g) ?? [])
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  if (definition.query) {
    const shape = jsonSchema(definition.query) as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(shape.properties ?? {})) {
      const repeated = doc.repeated?.includes(name);
      parameters.push({
        name: repeated ? `${name}[]` : name,
        in: 'query',
        required: shape.required?.includes(name) ?? false,
        schema: repeated ? { type: 'array', items: { type: 'string' } } : schema,
        ...(repeated ? { style: 'form', explode: true } : {}),
      });
    }
  }
  const format = ERROR_FORMATS[definition.format === 'chat' || definition.format === 'anthropic' ? definition.format : 'link'];
  const errorSchema = outputSchema(format.schema);
  const responses: Record<string, unknown> = {};
  for (const [status, reply] of Object.entries(doc.replies)) {
    responses[status] = {
      description: reply.description,
      content: {
        'application/json': reply.schema ? { schema: outputSchema(reply.schema) } : {},
        ...(reply.stream ? { 'text/event-stream': { schema: { type: 'string' } } } : {}),
      },
    };
  }
  for (const status of doc.errors) {
    const known = format.examples[status];
    responses[status] = {
      description: known?.meaning ?? `Error (${status})`,
      content: { 'application/json': { schema: errorSchema, ...(known ? { example: format.body(known.error as never) } : {}) } },
    };
  }
  return {
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.beyond ? { description: 'Beyond the service interface: a Triad extension.' } : {}),
    security: SECURITY[definition.auth],
    parameters,
    ...(definition.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: jsonSchema(definition.body), ...(doc.example !== undefined ? { example: doc.example } : {}) },
            },
          },
        }
      : {}),
    responses,
  };
}

/**
 * The node agents' tunnel (design §14, lib/tunnel/server.ts): a WebSocket upgrade that Triad's server
 * takes before Next, so not in the route table. Its frames are in `x-triad-websocket` (OpenAPI has no
 * word for them), from the zod schemas both sides parse them with.
 */
function tunnelOperation() {
  const schema = outputSchema(linkErrorSchema);
  const error = (description: string) => ({ description, content: { 'application/json': { schema } } });
  const header = (name: string, schema: Record<string, unknown>) => ({ name, in: 'header', required: true, schema });
  return {
    tags: ['Partner statistics'],
    summary:
      "A node agent's tunnel: a WebSocket over which Triad sends the node its requests (chat completions, embeddings, and the Responses and Messages APIs its model server speaks)",
    description: [
      'Beyond the service interface: a Triad extension.',
      '',
      `A WebSocket of JSON text frames (protocol \`${PROTOCOL}\`): the agent's first frame is its \`hello\`, within ` +
        `${HELLO_MS / 1000} s; Triad answers \`welcome\`, then sends requests multiplexed by id. Open it with the node agent, ` +
        'not by hand: `npm run node:connect -- --help` in a checkout, or [triad-node.mjs](/downloads/triad-node.mjs) on a machine of your own ' +
        '(`node triad-node.mjs --help`).',
      '',
      `Frames: ${frameTypes()
        .map((t) => `\`${t}\``)
        .join(', ')} (their schemas: \`x-triad-websocket\`). ` +
        `Close codes: ${Object.entries(CLOSE)
          .map(([name, code]) => `${code} ${name}`)
          .join(', ')}.`,
    ].join('\n'),
    security: [{ partnerSecret: [] }],
    parameters: [
      header('Upgrade', { type: 'string', const: 'websocket' }),
      header('Connection', { type: 'string', const: 'Upgrade' }),
      header('Sec-WebSocket-Version', { type: 'string', const: '13' }),
      header('Sec-WebSocket-Key', { type: 'string' }),
    ],
    responses: {
      101: { description: 'Switching Protocols: the tunnel is open' },
      401: error('The partner secret is missing, wrong, or was rotated'),
      403: error('The organization is suspended'),
      426: error('Not a WebSocket upgrade (a plain request, or a proxy that dropped the Upgrade header)'),
      429: error('The partner holds TRIAD_TUNNEL_MAX_PER_PARTNER tunnels already'),
      503: error('The tunnel could not be opened (the database); Retry-After'),
    },
    'x-triad-websocket': { protocol: PROTOCOL, frames: jsonSchema(frame), close_codes: CLOSE },
  };
}

/** The kind (`t`) of each frame of the tunnel protocol, from its schema. */
function frameTypes(): string[] {
  type Variant = { properties?: { t?: { const?: string } } };
  const schema = jsonSchema(frame) as { oneOf?: Variant[]; anyOf?: Variant[] };
  return (schema.oneOf ?? schema.anyOf ?? []).flatMap((f) => (f.properties?.t?.const ? [f.properties.t.const] : []));
}

function document(paths: Record<string, Record<string, unknown>>, serverUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Triad',
      version: '1',
      description:
        'Chat completions, partner node statistics and aliases. Errors: chat `{error:{message,type,code}}`; statistics and aliases `{error:{message,status,detail?}}`.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key (sk_live_…), for chat' },
        orgToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Organization token (org_…); statistics also take the partner secret as ?secret=',
        },
        partnerSecret: {
          type: 'http',
          scheme: 'bearer',
          description: "The partner secret (pt_sec_…): a node agent's tunnel",
        },
        adminSecret: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin secret of the data directory (admin.secret), from this machine only',
        },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Admin token (adm_…, `npm run admin -- admin-token create`): instance calls',
        },
        consoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'triad_session',
          description:
            'The console session (POST /api/session). A call that changes something also needs X-CSRF-Token (from the session) and an Origin of this server. Partner statistics take `partner=<partner id>` instead of `secret`; chat completions count on the organization’s playground key.',
        },
        aliasJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'HS256/384/512 JWT signed with the alias jwt_secret: claims alias, user_id, host, expires_in (with iat) or exp',
        },
      },
    },
    paths,
  };
}
