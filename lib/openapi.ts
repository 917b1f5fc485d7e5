import { z } from 'zod';
import {
  aliasPageSchema,
  aliasWireSchema,
  createAliasSchema,
  listAliasesQuerySchema,
  retrieveAliasQuerySchema,
  updateAliasSchema,
} from '@/lib/aliases/schema';
import { credentialsCheckSchema } from '@/lib/auth/check';
import {
  apiKeyCreateBody,
  apiKeyCreatedSchema,
  apiKeySchema,
  auditEntrySchema,
  auditQuery,
  namedCreateBody,
  orgCreateBody,
  organizationCreatedSchema,
  organizationSchema,
  orgTokenCreatedSchema,
  orgTokenSchema,
  orgUpdateBody,
  partnerSchema,
  partnerSecretSchema,
  renameNodeBody,
  sessionSchema,
  signInBody,
  usageQuery,
  usageSeriesSchema,
} from '@/lib/console/schema';
import { chatCompletionSchema, chatRequestSchema, modelListSchema } from '@/lib/chat/schema';
import { chatErrorSchema } from '@/lib/errors/chat';
import { linkErrorSchema } from '@/lib/errors/link';
import { providerCreateSchema, providerTestSchema, providerUpdateSchema, providerViewSchema } from '@/lib/providers/schema';
import {
  detailQuery,
  detailsQuery,
  listNodesQuery,
  nodeEventsBody,
  nodePageSchema,
  nodeStatusSchema,
  registerNodeBody,
  seriesQuery,
  seriesSchema,
  summaryQuery,
  summarySchema,
  uptimeSchema,
  uptimeQuery,
  uptimesQuery,
} from '@/lib/stats/schema';

/*
 * The OpenAPI 3.1 document, generated from the zod schemas the handlers parse with (request bodies,
 * query parameters) and the reply schemas beside them in each domain's schema.ts (the same schemas
 * the dashboard's client takes its types from).
 */
const linkError = linkErrorSchema;
const chatError = chatErrorSchema;
const alias = aliasWireSchema;
const nodeStatus = nodeStatusSchema;
const uptime = uptimeSchema;
const completion = chatCompletionSchema;

type Auth =
  'apiKey' | 'orgToken' | 'orgTokenOptional' | 'admin' | 'none' | 'orgConsole' | 'instanceConsole' | 'instanceOrLocal' | 'session';
type Op = {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  tag: 'Chat' | 'Partner statistics' | 'Aliases' | 'Operations' | 'Providers' | 'Console';
  summary: string;
  auth: Auth;
  query?: z.ZodObject;
  body?: z.ZodType;
  ok: { status: number; schema?: z.ZodType; description: string; stream?: boolean };
  errors: number[];
  beyond?: boolean;
};

const data = (s: z.ZodType) => z.object({ data: s });
const provider = providerViewSchema;
const adminErrors = [400, 401, 403, 404];

export const OPERATIONS: Op[] = [
  {
    method: 'post',
    path: '/api/v1/chat/completions',
    tag: 'Chat',
    summary: 'Create a chat completion (JSON, or Server-Sent Events with stream: true)',
    auth: 'apiKey',
    body: chatRequestSchema,
    ok: {
      status: 200,
      schema: completion,
      description: 'A chat.completion; with stream: true, text/event-stream of chat.completion.chunk events ending with data: [DONE]',
      stream: true,
    },
    errors: [400, 401, 404, 413, 429, 500, 502, 503],
  },
  {
    method: 'get',
    path: '/api/v1/models',
    tag: 'Chat',
    summary: 'List the models served',
    auth: 'apiKey',
    ok: { status: 200, schema: modelListSchema, description: 'The models served' },
    errors: [401, 429],
    beyond: true,
  },
  {
    method: 'get',
    path: '/api/v1/usage',
    tag: 'Chat',
    summary: "The calling key's usage per model",
    auth: 'apiKey',
    ok: { status: 200, description: '{object: "list", data: [{model, requests, prompt_tokens, completion_tokens}]}' },
    errors: [401, 429],
    beyond: true,
  },
  {
    method: 'get',
    path: '/api/v1/partner/nodes',
    tag: 'Partner statistics',
    summary: 'List partner nodes',
    auth: 'orgToken',
    query: listNodesQuery,
    ok: { status: 200, schema: data(nodePageSchema), description: 'One page of nodes' },
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/api/v1/uptime',
    tag: 'Partner statistics',
    summary: 'Uptime of one node (total without a full range; bounds rounded down to the hour; ≤ 14 days)',
    auth: 'orgToken',
    query: uptimeQuery,
    ok: { status: 200, schema: data(uptime), description: 'Uptime in milliseconds' },
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/api/v1/uptimes',
    tag: 'Partner statistics',
    summary: 'Uptime of up to 5 nodes',
    auth: 'orgToken',
    query: uptimesQuery,
    ok: { status: 200, schema: data(z.array(uptime)), description: 'One uptime per node, in order' },
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/api/v1/partner/details',
    tag: 'Partner statistics',
    summary: 'Status and total uptime of several nodes (repeat partner_node_id[])',
    auth: 'orgToken',
    query: detailsQuery,
    ok: { status: 200, schema: data(z.array(nodeStatus)), description: 'One status per requested node, in order' },
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/api/v1/partner/detail',
    tag: 'Partner statistics',
    summary: 'Status and total uptime of one node',
    auth: 'orgToken',
    query: detailQuery,
    ok: { status: 200, schema: data(nodeStatus), description: 'Node status' },
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/api/v1/partner/summary',
    tag: 'Partner statistics',
    summary: 'Fleet totals of a partner',
    auth: 'orgToken',
    query: summaryQuery,
    ok: { status: 200, schema: data(summarySchema), description: 'Fleet totals' },
    errors: [400, 401, 429],
    beyond: true,
  },
  {
    method: 'get',
    path: '/api/v1/uptime/series',
    tag: 'Partner statistics',
    summary: 'Per-hour or per-day uptime of one node, for charts',
    auth: 'orgToken',
    query: seriesQuery,
    ok: { status: 200, schema: data(seriesSchema), description: 'Uptime per bucket' },
    errors: [400, 401, 429],
    beyond: true,
  },
  {
    method: 'post',
    path: '/api/v1/node/register',
    tag: 'Partner statistics',
    summary: 'Register a node (idempotent)',
    auth: 'orgToken',
    body: registerNodeBody,
    ok: { status: 200, schema: data(z.literal(true)), description: 'Registered' },
    errors: [400, 401, 429],
    beyond: true,
  },
  {
    method: 'post',
    path: '/api/v1/node/events',
    tag: 'Partner statistics',
    summary: 'Ingest node events: batched, idempotent on event_id, out-of-order tolerant',
    auth: 'orgToken',
    body: nodeEventsBody,
    ok: { status: 200, schema: data(z.object({ accepted: z.number().int() })), description: 'How many events were new' },
    errors: [400, 401, 413, 429],
    beyond: true,
  },
  {
    method: 'post',
    path: '/organization/api/v1/alias/create',
    tag: 'Aliases',
    summary: 'Create an alias',
    auth: 'orgToken',
    body: createAliasSchema,
    ok: { status: 201, schema: data(alias.omit({ inserted_at: true })), description: 'The alias, without inserted_at' },
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/organization/api/v1/aliases',
    tag: 'Aliases',
    summary: "List the organization's aliases, newest first",
    auth: 'orgToken',
    query: listAliasesQuerySchema,
    ok: { status: 200, schema: aliasPageSchema, description: 'One page of aliases' },
    errors: [400, 401, 429],
  },
  {
    method: 'get',
    path: '/organization/api/v1/alias/{id}',
    tag: 'Aliases',
    summary: 'Retrieve an alias: owner token, public, ?passcode= or Authorization: Bearer <JWT>',
    auth: 'orgTokenOptional',
    query: retrieveAliasQuerySchema,
    ok: {
      status: 200,
      schema: data(alias),
      description: 'The alias with inserted_at; secrets only for the owner (stream_key also for a host JWT)',
    },
    errors: [400, 401, 404, 429],
  },
  {
    method: 'post',
    path: '/organization/api/v1/alias/update/{id}',
    tag: 'Aliases',
    summary: 'Update an alias (type required; omitted fields stay; null clears)',
    auth: 'orgToken',
    body: updateAliasSchema,
    ok: { status: 200, schema: data(alias), description: 'The alias' },
    errors: [400, 401, 404, 429],
  },
  {
    method: 'delete',
    path: '/organization/api/v1/alias/delete/{id}',
    tag: 'Aliases',
    summary: 'Delete an alias for good',
    auth: 'orgToken',
    ok: { status: 200, schema: z.object({ message: z.string() }), description: '{"message":"Alias deleted successfully."}' },
    errors: [401, 404, 429],
  },
  {
    method: 'get',
    path: '/api/health',
    tag: 'Operations',
    summary: 'Liveness, database reachability and where rate limits are counted',
    auth: 'none',
    ok: {
      status: 200,
      description:
        '{status, database: {driver, reachable, latency_ms}, rate_limits: {store: "memory" | "redis" | "memory-fallback"}}; 503 when the database does not answer (Redis away is reported as memory-fallback, not a 503)',
    },
    errors: [503],
    beyond: true,
  },
  {
    method: 'post',
    path: '/api/credentials/check',
    tag: 'Operations',
    summary: 'Which of the given credentials are valid',
    auth: 'none',
    body: credentialsCheckSchema,
    ok: { status: 200, description: '{data: {org_token?, api_key?, partner_secret?}}' },
    errors: [400, 413, 429],
    beyond: true,
  },
  {
    method: 'get',
    path: '/api/metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (this machine under a Host naming it, or Bearer TRIAD_METRICS_TOKEN)',
    auth: 'none',
    ok: { status: 200, description: 'text/plain; version=0.0.4' },
    errors: [401, 403],
    beyond: true,
  },
  {
    method: 'get',
    path: '/api/admin/providers',
    tag: 'Providers',
    summary: 'List the providers, with their health and the models they serve',
    auth: 'instanceOrLocal',
    ok: { status: 200, schema: data(z.array(provider)), description: 'Every provider (never its API key)' },
    errors: [401, 403],
    beyond: true,
  },
  {
    method: 'post',
    path: '/api/admin/providers',
    tag: 'Providers',
    summary: 'Add a provider (an OpenAI-compatible model server)',
    auth: 'instanceOrLocal',
    body: providerCreateSchema,
    ok: { status: 201, schema: data(provider), description: 'The provider' },
    errors: [...adminErrors, 409, 413],
    beyond: true,
  },
  {
    method: 'get',
    path: '/api/admin/providers/{name}',
    tag: 'Providers',
    summary: 'One provider',
    auth: 'instanceOrLocal',
    ok: { status: 200, schema: data(provider), description: 'The provider' },
    errors: adminErrors,
    beyond: true,
  },
  {
    method: 'patch',
    path: '/api/admin/providers/{name}',
    tag: 'Providers',
    summary: 'Change a provider (api_key: null removes it; node: null unlinks it)',
    auth: 'instanceOrLocal',
    body: providerUpdateSchema,
    ok: { status: 200, schema: data(provider), description: 'The provider' },
    errors: [...adminErrors, 409, 413],
    beyond: true,
  },
  {
    method: 'delete',
    path: '/api/admin/providers/{name}',
    tag: 'Providers',
    summary: 'Remove a provider',
    auth: 'instanceOrLocal',
    ok: { status: 200, schema: data(z.object({ removed: z.literal(true), name: z.string() })), description: 'Removed' },
    errors: adminErrors,
    beyond: true,
  },
  {
    method: 'post',
    path: '/api/admin/providers/{name}/test',
    tag: 'Providers',
    summary: 'Probe a provider now (GET {base_url}/models); its health and models are stored',
    auth: 'instanceOrLocal',
    ok: { status: 200, schema: data(providerTestSchema), description: 'The probe’s result' },
    errors: adminErrors,
    beyond: true,
  },
];

/* The console (design §11): an org token or an organization's session; an admin token or an administrator's session. */
const consoleErrors = [400, 401, 403, 404, 429];
const consoleOps: Omit<Op, 'tag'>[] = [
  {
    method: 'post',
    path: '/api/session',
    summary: 'Sign in with an org token or an admin token: sets the session cookie (triad_session)',
    auth: 'none',
    body: signInBody,
    ok: { status: 200, schema: data(sessionSchema), description: 'The new session; Set-Cookie: triad_session (HttpOnly, SameSite=Lax)' },
    errors: [400, 401, 403, 429],
  },
  {
    method: 'get',
    path: '/api/session',
    summary: 'The current session: role, organization, expiry, CSRF token',
    auth: 'session',
    ok: { status: 200, schema: data(sessionSchema), description: 'The session' },
    errors: [401, 403],
  },
  {
    method: 'delete',
    path: '/api/session',
    summary: 'Sign out (ends this session, removes the cookie)',
    auth: 'session',
    ok: { status: 200, description: '{data: {signed_out: true}}' },
    errors: [401, 403],
  },
  {
    method: 'post',
    path: '/api/session/end-all',
    summary: 'Sign out everywhere: every session of the organization (or of the admin token)',
    auth: 'session',
    ok: { status: 200, description: '{data: {sessions_ended}}' },
    errors: [401, 403],
  },
  {
    method: 'get',
    path: '/api/org/api-keys',
    summary: "The organization's API keys, with last use and completions in the last 24 h",
    auth: 'orgConsole',
    ok: { status: 200, schema: data(z.array(apiKeySchema)), description: 'Newest first' },
    errors: consoleErrors,
  },
  {
    method: 'post',
    path: '/api/org/api-keys',
    summary: 'Create an API key (shown once)',
    auth: 'orgConsole',
    body: apiKeyCreateBody,
    ok: { status: 201, schema: data(apiKeyCreatedSchema), description: 'The key, in this reply only' },
    errors: consoleErrors,
  },
  {
    method: 'delete',
    path: '/api/org/api-keys/{id}',
    summary: 'Revoke an API key (the chat API refuses it at once)',
    auth: 'orgConsole',
    ok: { status: 200, description: '{data: {revoked: true}}' },
    errors: consoleErrors,
  },
  {
    method: 'get',
    path: '/api/org/tokens',
    summary: "The organization's tokens",
    auth: 'orgConsole',
    ok: { status: 200, schema: data(z.array(orgTokenSchema)), description: 'Newest first' },
    errors: consoleErrors,
  },
  {
    method: 'post',
    path: '/api/org/tokens',
    summary: 'Create an org token (shown once)',
    auth: 'orgConsole',
    body: namedCreateBody,
    ok: { status: 201, schema: data(orgTokenCreatedSchema), description: 'The token, in this reply only' },
    errors: consoleErrors,
  },
  {
    method: 'delete',
    path: '/api/org/tokens/{id}',
    summary: 'Revoke an org token (sessions signed in with it end)',
    auth: 'orgConsole',
    ok: { status: 200, description: '{data: {revoked: true}}' },
    errors: consoleErrors,
  },
  {
    method: 'get',
    path: '/api/org/partners',
    summary: "The organization's partners",
    auth: 'orgConsole',
    ok: { status: 200, schema: data(z.array(partnerSchema)), description: 'Oldest first' },
    errors: consoleErrors,
  },
  {
    method: 'post',
    path: '/api/org/partners',
    summary: 'Create a partner (its secret shown once)',
    auth: 'orgConsole',
    body: namedCreateBody,
    ok: { status: 201, schema: data(partnerSecretSchema), description: 'The partner and its secret, in this reply only' },
    errors: consoleErrors,
  },
  {
    method: 'post',
    path: '/api/org/partners/{id}/rotate-secret',
    summary: 'A new partner secret (shown once); the old one is refused at once',
    auth: 'orgConsole',
    ok: { status: 200, schema: data(partnerSecretSchema), description: 'The new secret, in this reply only' },
    errors: consoleErrors,
  },
  {
    method: 'patch',
    path: '/api/org/partners/{id}/nodes/{node}',
    summary: "Rename a partner's node (its public name)",
    auth: 'orgConsole',
    body: renameNodeBody,
    ok: { status: 200, description: '{data: {partner_node_id, name}}' },
    errors: consoleErrors,
  },
  {
    method: 'get',
    path: '/api/org/usage',
    summary: 'Chat usage over time: per key or model, hourly or daily; requests, tokens, errors, latency and TTFT percentiles',
    auth: 'orgConsole',
    query: usageQuery,
    ok: { status: 200, schema: usageSeriesSchema, description: 'One point per bucket and group that had usage' },
    errors: consoleErrors,
  },
  {
    method: 'get',
    path: '/api/org/audit',
    summary: "The organization's audit log, newest first",
    auth: 'orgConsole',
    query: auditQuery,
    ok: { status: 200, schema: data(z.array(auditEntrySchema)), description: 'Entries; page with before=<last id>' },
    errors: consoleErrors,
  },
  {
    method: 'get',
    path: '/api/instance/organizations',
    summary: 'Every organization of the instance',
    auth: 'instanceConsole',
    ok: { status: 200, schema: data(z.array(organizationSchema)), description: 'Newest first' },
    errors: consoleErrors,
  },
  {
    method: 'post',
    path: '/api/instance/organizations',
    summary: 'Create an organization and its first org token (shown once)',
    auth: 'instanceConsole',
    body: orgCreateBody,
    ok: { status: 201, schema: data(organizationCreatedSchema), description: 'The organization and its token' },
    errors: consoleErrors,
  },
  {
    method: 'patch',
    path: '/api/instance/organizations/{id}',
    summary: "Suspend or resume an organization (a suspended one's every credential gets 403)",
    auth: 'instanceConsole',
    body: orgUpdateBody,
    ok: { status: 200, description: '{data: {id, name, suspended_at}}' },
    errors: consoleErrors,
  },
  {
    method: 'get',
    path: '/api/instance/usage',
    summary: 'Chat usage of the whole instance over time: per organization (the default), key or model',
    auth: 'instanceConsole',
    query: usageQuery,
    ok: { status: 200, schema: usageSeriesSchema, description: 'One point per bucket and group that had usage' },
    errors: consoleErrors,
  },
  {
    method: 'get',
    path: '/api/instance/audit',
    summary: 'The audit log of the whole instance, newest first',
    auth: 'instanceConsole',
    query: auditQuery,
    ok: { status: 200, schema: data(z.array(auditEntrySchema)), description: 'Entries; page with before=<last id>' },
    errors: consoleErrors,
  },
];
OPERATIONS.push(...consoleOps.map((op) => ({ ...op, tag: 'Console' as const, beyond: true })));

const jsonSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
const outputSchema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;

const SECURITY: Record<Auth, { [k: string]: string[] }[]> = {
  apiKey: [{ apiKey: [] }],
  orgToken: [{ orgToken: [] }],
  orgTokenOptional: [{}, { orgToken: [] }, { aliasJwt: [] }],
  admin: [{ adminSecret: [] }],
  none: [],
  orgConsole: [{ orgToken: [] }, { consoleSession: [] }],
  instanceConsole: [{ adminToken: [] }, { consoleSession: [] }],
  instanceOrLocal: [{ adminToken: [] }, { consoleSession: [] }, { adminSecret: [] }],
  session: [{ consoleSession: [] }],
};

let paths: Record<string, Record<string, unknown>> | undefined;

/** The document for a server at `serverUrl`; its paths are worked out from the schemas once, at the first call. */
export function openApiDocument(serverUrl = '/') {
  paths ??= operationPaths();
  return document(paths, serverUrl);
}

function operationPaths() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters: unknown[] = [];
    for (const name of op.path.match(/(?<=\{)[a-z_]+(?=\})/g) ?? [])
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    if (op.query) {
      const shape = jsonSchema(op.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(shape.properties ?? {})) {
        const repeated = name === 'partner_node_id' && (op.path.endsWith('/details') || op.path.endsWith('/uptimes'));
        parameters.push({
          name: repeated ? 'partner_node_id[]' : name,
          in: 'query',
          required: shape.required?.includes(name) ?? false,
          schema: repeated ? { type: 'array', items: { type: 'string' } } : schema,
          ...(repeated ? { style: 'form', explode: true } : {}),
        });
      }
    }
    const errorSchema = op.tag === 'Chat' ? chatError : linkError;
    const responses: Record<string, unknown> = {
      [op.ok.status]: {
        description: op.ok.description,
        content: {
          ...(op.ok.schema ? { 'application/json': { schema: outputSchema(op.ok.schema) } } : { 'application/json': {} }),
          ...(op.ok.stream ? { 'text/event-stream': { schema: { type: 'string' } } } : {}),
        },
      },
    };
    for (const status of op.errors)
      responses[status] = { description: `Error (${status})`, content: { 'application/json': { schema: outputSchema(errorSchema) } } };
    (paths[op.path] ??= {})[op.method] = {
      tags: [op.tag],
      summary: op.summary,
      ...(op.beyond ? { description: 'Beyond the service interface: a Triad extension.' } : {}),
      security: SECURITY[op.auth],
      parameters,
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
      responses,
    };
  }
  return paths;
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
            'The console session (POST /api/session). A call that changes something also needs X-CSRF-Token (from the session) and an Origin of this server. Partner statistics take `partner=<partner id>` instead of `secret`.',
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
