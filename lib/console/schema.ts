import { z } from 'zod';
import { PERIODS } from '@/lib/budgets/periods';
import { preferencesSchema } from '@/lib/chat/schema';
import { compareDecimals, DECIMAL_TEXT } from '@/lib/core/decimal';
import { pathId } from '@/lib/core/input';

/*
 * The console's request schemas (design §11), shared by the route handlers, the OpenAPI document and
 * the dashboard's client.
 */
const name = z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters');
export const signInBody = z.object({
  token: z.string({ error: 'token (an org token or an admin token) is required' }).trim().min(1, 'token must not be empty').max(500),
});
/** A key's allow-list (design §17): model names, at most 100; null or absent: every model. */
export const keyModels = z
  .array(z.string().trim().min(1, 'a model name is not empty').max(200), { error: 'models is a list of model names' })
  .min(1, 'models lists at least one model (null allows every model)')
  .max(100, 'models lists at most 100 models')
  .transform((m) => [...new Set(m)]);
/** When a key stops working: Unix seconds, in the future when set. */
export const keyExpiry = z
  .number({ error: 'expires_at is Unix seconds' })
  .int('expires_at is whole Unix seconds')
  .min(1, 'expires_at is Unix seconds')
  .max(253_402_300_799, 'expires_at is before the year 10000')
  .refine((s) => s * 1000 > Date.now(), 'expires_at is in the past');
/** A budget (design §17): USD, exact decimal text (a JSON number is taken as its text), at most a million. */
export const budgetUsd = z.preprocess(
  (v) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? String(v) : v),
  z
    .string({ error: 'budget_usd is an amount of USD, e.g. 0.10' })
    .regex(DECIMAL_TEXT, 'budget_usd is a non-negative amount of USD, e.g. 0.10')
    .refine((v) => !DECIMAL_TEXT.test(v) || compareDecimals(v, '1000000') <= 0, 'budget_usd is at most 1000000'),
);
/** The period a budget covers: a UTC calendar day, week (from Monday) or month, or `total`. */
export const budgetPeriod = z.enum(PERIODS, { error: 'budget_period is day, week, month or total' });
const budgetFields = { budget_usd: budgetUsd.nullish(), budget_period: budgetPeriod.optional() };
const periodNeedsBudget = (b: { budget_usd?: unknown; budget_period?: unknown }) =>
  !(b.budget_usd === null && b.budget_period !== undefined);
export const apiKeyCreateBody = z
  .object({
    name,
    rpm: z.number().int().min(1, 'rpm is at least 1').max(1_000_000, 'rpm is at most 1000000').optional(),
    models: keyModels.nullish(),
    expires_at: keyExpiry.nullish(),
    ...budgetFields,
    preferences: preferencesSchema.nullish(),
  })
  .refine((b) => b.budget_period === undefined || b.budget_usd != null, 'budget_period goes with budget_usd');
/** A change to a key's controls: an absent field stays, null removes it (budget_usd: null removes the budget). */
export const apiKeyUpdateBody = z
  .object({ models: keyModels.nullish(), expires_at: keyExpiry.nullish(), ...budgetFields, preferences: preferencesSchema.nullish() })
  .refine(
    (b) => Object.values(b).some((v) => v !== undefined),
    'give models, expires_at, budget_usd, budget_period or preferences (null removes one)',
  )
  .refine(periodNeedsBudget, 'budget_usd: null removes the budget; give no budget_period with it');
export const namedCreateBody = z.object({ name });
export const renameNodeBody = z.object({ name });
export const nodeParams = z.object({ id: pathId, node: pathId });

const msText = (what: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, `${what} must be Unix milliseconds`)
    .transform(Number);
export const usageQuery = z
  .object({
    started_at: msText('started_at').optional(),
    ended_at: msText('ended_at').optional(),
    bucket: z.enum(['hour', 'day'], { error: 'bucket is hour or day' }).default('hour'),
    group_by: z.enum(['key', 'model', 'organization'], { error: 'group_by is key, model or organization' }).default('key'),
    api_key_id: z.string().min(1).max(200).optional(),
    model: z.string().min(1).max(200).optional(),
  })
  .refine((q) => q.started_at === undefined || q.ended_at === undefined || q.started_at < q.ended_at, 'started_at must be before ended_at');
/** A page's length, 1 to 200 (50 unless said). */
const pageLimit = z
  .string()
  .regex(/^\d{1,3}$/, 'limit must be an integer from 1 to 200')
  .transform(Number)
  .refine((n) => n >= 1 && n <= 200, 'limit must be an integer from 1 to 200')
  .default(50);
/** `GET /api/org/requests` (design §18): filters and a cursor. */
export const requestsQuery = z
  .object({
    api_key_id: z.string().min(1).max(200).optional(),
    model: z.string().min(1).max(200).optional(),
    /** The API path a request came by (`/api/v1/messages`, …). */
    endpoint: z.string().min(1).max(200).optional(),
    status: z
      .string()
      .regex(/^([1-5]\d\d|[245]xx|error)$/, 'status is an HTTP status (429), a class (2xx, 4xx, 5xx) or error')
      .transform((v) => (/^\d+$/.test(v) ? Number(v) : (v as '2xx' | '4xx' | '5xx' | 'error')))
      .optional(),
    request_id: z.string().min(1).max(64).optional(),
    started_at: msText('started_at').optional(),
    ended_at: msText('ended_at').optional(),
    after: z.string().min(1).max(100).optional(),
    limit: pageLimit,
  })
  .refine((q) => q.started_at === undefined || q.ended_at === undefined || q.started_at < q.ended_at, 'started_at must be before ended_at');
export const auditQuery = z.object({
  limit: pageLimit,
  before: z
    .string()
    .regex(/^\d{1,18}$/, 'before must be an entry id')
    .transform(Number)
    .optional(),
  action: z
    .string()
    .regex(/^[a-z_]{1,40}(\.[a-z_]{1,40})?$/, 'action is an action (api_key.revoke) or the object of actions (api_key)')
    .optional()
    .describe('Only this action, or every action on this kind of object (api_key, session, …)'),
});
export const orgCreateBody = z.object({ name });
export const orgUpdateBody = z.object({ suspended: z.boolean({ error: 'suspended (true or false) is required' }) });

/* Replies (the OpenAPI document and the dashboard's client take their types from these). */
const time = z.string().describe('ISO 8601');
export const sessionSchema = z.object({
  id: z.string(),
  role: z.enum(['org', 'admin']),
  organization: z.object({ id: z.string(), name: z.string() }).nullable(),
  csrf_token: z.string().describe('send it as X-CSRF-Token with every call that changes something'),
  created_at: time,
  expires_at: time,
  idle_expires_at: time,
});
export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  rpm: z.number().int().nullable(),
  /** The models it may use; null: every model. */
  models: z.array(z.string()).nullable(),
  /** When it stops working (Unix seconds); null: never. */
  expires_at: z.number().int().nullable(),
  /** Its budget (USD per period) and what the period under way has spent (null: no budget). */
  budget: z
    .object({ usd: z.string(), period: budgetPeriod, spent: z.string(), remaining: z.string(), resets_at: time.nullable() })
    .nullable(),
  /** Routing preferences its requests get when they give none (OpenRouter's `provider` object); null: none. */
  preferences: z.record(z.string(), z.unknown()).nullable(),
  created_at: time,
  last_used_at: time.nullable(),
  requests_24h: z.number().int(),
  revoked_at: time.nullable(),
});
export const apiKeyCreatedSchema = z.object({
  id: z.string(),
  key: z.string().describe('shown once'),
  name: z.string(),
  prefix: z.string(),
  rpm: z.number().int().nullable(),
  models: z.array(z.string()).nullable(),
  expires_at: z.number().int().nullable(),
  budget_usd: z.string().nullable(),
  budget_period: budgetPeriod.nullable(),
});
export const orgTokenSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  created_at: time,
  revoked_at: time.nullable(),
});
export const orgTokenCreatedSchema = z.object({
  id: z.string(),
  token: z.string().describe('shown once'),
  name: z.string(),
  prefix: z.string(),
});
export const partnerSchema = z.object({
  id: z.string(),
  name: z.string(),
  secret_prefix: z.string(),
  created_at: time,
  nodes: z.number().int(),
});
/** A partner node's tunnel as the console shows it (the node agent's connection to this instance). */
export const nodeTunnelSchema = z.object({
  partner_node_id: z.string(),
  provider: z.string().describe('the provider name requests name it by (X-Triad-Provider)'),
  state: z.enum(['unknown', 'up', 'down']),
  connected_since: time.nullable().describe('since when its agent is connected (null: it is not)'),
  models: z.array(z.string()),
  in_flight: z.number().int(),
  served_today: z.number().int().describe('completions since 00:00 UTC'),
  network: z
    .enum(['private', 'admitted'])
    .describe(
      "private: it serves this organization only; admitted: an instance administrator admitted it to serve every organization's completions",
    ),
});
export type NodeTunnel = z.infer<typeof nodeTunnelSchema>;

/** An organization's own settings (design §20). */
export const orgSettingsSchema = z.object({
  network_nodes: z
    .boolean()
    .describe("whether this organization's completions may go to other organizations' nodes that an administrator admitted to the network"),
  /** A budget over all its keys (design §17), and what the period under way has spent; null: none. */
  budget: z
    .object({ usd: z.string(), period: budgetPeriod, spent: z.string(), remaining: z.string(), resets_at: time.nullable() })
    .nullable(),
});
export const orgSettingsBody = z
  .strictObject({ network_nodes: z.boolean({ error: 'network_nodes is true or false' }).optional(), ...budgetFields })
  .refine(
    (b) => b.network_nodes !== undefined || b.budget_usd !== undefined || b.budget_period !== undefined,
    'give network_nodes, budget_usd or budget_period',
  )
  .refine(periodNeedsBudget, 'budget_usd: null removes the budget; give no budget_period with it');

export const partnerSecretSchema = z.object({
  id: z.string(),
  name: z.string(),
  secret: z.string().describe('shown once'),
  secret_prefix: z.string(),
});
export const usagePointSchema = z.object({
  bucket_start: z.number().int().describe('Unix ms, UTC hour or day'),
  group: z.string().describe('the API key id (group_by=key), the model (group_by=model) or the organization id (group_by=organization)'),
  label: z.string(),
  requests: z.number().int(),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cost: z.string().describe("USD spent (exact decimal text): tokens at the serving providers' prices"),
  errors: z.number().int(),
  latency_p50_ms: z.number().nullable(),
  latency_p95_ms: z.number().nullable(),
  ttft_p50_ms: z.number().nullable(),
  ttft_p95_ms: z.number().nullable(),
});
export const usageSeriesSchema = z.object({
  started_at: z.number().int(),
  ended_at: z.number().int(),
  bucket: z.enum(['hour', 'day']),
  group_by: z.enum(['key', 'model', 'organization']),
  data: z.array(usagePointSchema),
});
export const requestEntrySchema = z.object({
  request_id: z.string().describe('The X-Request-Id of the request'),
  created_at: time.describe('When the request began'),
  api_key_id: z.string(),
  endpoint: z.string().describe('The API path it came by'),
  model: z.string().describe('The model asked for'),
  provider: z.string().nullable().describe('Who served it; null when no provider did'),
  status: z.number().int().describe('The HTTP status the client got (a stream that broke after its first byte: 200, with error)'),
  stream: z.boolean(),
  latency_ms: z.number().int(),
  ttft_ms: z.number().int().nullable().describe('Time to the first content of a stream'),
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cost: z.number().describe('USD'),
  error: z.string().nullable().describe('Its error code, or aborted / error for a reply that broke off'),
  trace_id: z.string().nullable().describe("The request's trace, when traces are exported"),
});
export const requestLogSchema = z.object({ data: z.object({ entries: z.array(requestEntrySchema), after: z.string().nullable() }) });
export const auditEntrySchema = z.object({
  id: z.number().int(),
  at: time,
  org_id: z.string().nullable(),
  actor: z.string().describe('session:<id>, org_token:<id>, admin_token:<id> or admin_cli'),
  action: z.string(),
  object: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
  address: z.string().nullable(),
});
export const organizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: time,
  suspended_at: time.nullable(),
  api_keys: z.number().int(),
  partners: z.number().int(),
});
export const organizationCreatedSchema = z.object({
  id: z.string(),
  name: z.string(),
  org_token: z.string().describe('shown once'),
  org_token_id: z.string(),
});
