import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/*
 * One schema for both drivers (PGlite and PostgreSQL). Times of the interface's wire format
 * (milliseconds for stats, seconds for aliases) are stored as integers in that unit so
 * that no conversion hides in a query; bookkeeping times are timestamptz.
 */

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const revokedAt = () => timestamp('revoked_at', { withTimezone: true });
const ms = (name: string) => bigint(name, { mode: 'number' });

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: createdAt(),
  /** Set by an instance administrator: every credential of a suspended organization is refused (403). */
  suspendedAt: timestamp('suspended_at', { withTimezone: true }),
  /** Whether its completions may go to nodes admitted to the network (design §20); false: only providers and its own nodes. */
  networkNodes: boolean('network_nodes').notNull().default(true),
  /** A spending cap over all its keys (design §17): USD per `budget_period`; null: none. */
  budgetUsd: numeric('budget_usd'),
  budgetPeriod: text('budget_period', { enum: ['day', 'week', 'month', 'total'] }),
});

/**
 * An instance administrator's admission of a partner or a node to the network (design §20): its
 * nodes then serve every organization's completions, not only their own organization's. Who admitted
 * it (an audit actor) and when; null while private.
 */
const admittedAt = () => timestamp('admitted_at', { withTimezone: true });
const admittedBy = () => text('admitted_by');

/** Organization tokens: only the SHA-256 of the token is kept; `prefix` is its first characters, for display. */
export const orgTokens = pgTable(
  'org_tokens',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    label: text('label'),
    createdAt: createdAt(),
    revokedAt: revokedAt(),
  },
  (t) => [uniqueIndex('org_tokens_hash_idx').on(t.tokenHash), index('org_tokens_org_idx').on(t.orgId)],
);

/** Chat API keys, hashed like org tokens; `rpm` is the key's request rate per minute (null: the configured default). */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    label: text('label'),
    rpm: integer('rpm'),
    /** The models it may use (design §17); null: every model its organization is served. */
    models: jsonb('models').$type<string[] | null>(),
    /** After this the key is refused (401 naming the time); null: it does not expire. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /** A spending cap (design §17): USD per `budget_period` (UTC calendar `day`, `week`, `month`, or `total`); null: none. */
    budgetUsd: numeric('budget_usd'),
    budgetPeriod: text('budget_period', { enum: ['day', 'week', 'month', 'total'] }),
    /** Routing preferences its requests get when they give none (design §17): OpenRouter's `provider` object. */
    preferences: jsonb('preferences').$type<Record<string, unknown> | null>(),
    createdAt: createdAt(),
    revokedAt: revokedAt(),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.keyHash), index('api_keys_org_idx').on(t.orgId)],
);

/** A partner of an organization; its secret (the interface's `secret` query parameter) is stored hashed. */
export const partners = pgTable(
  'partners',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    secretPrefix: text('secret_prefix').notNull(),
    /** Admitted as a whole: every node of it serves the network (design §20). */
    admittedAt: admittedAt(),
    admittedBy: admittedBy(),
    createdAt: createdAt(),
    revokedAt: revokedAt(),
  },
  (t) => [uniqueIndex('partners_secret_idx').on(t.secretHash), index('partners_org_idx').on(t.orgId)],
);

/**
 * A partner's node. `externalId` is the interface's `partner_node_id`. Totals are kept incrementally:
 * `totalUptimeMs` covers closed sessions only (an open session adds `now - connected_at`).
 */
export const nodes = pgTable(
  'nodes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    publicId: text('public_id').notNull(),
    publicName: text('public_name').notNull(),
    ip: text('ip').notNull().default(''),
    unitShared: numeric('unit_shared').notNull().default('0'),
    usdEarned: numeric('usd_earned').notNull().default('0'),
    totalUptimeMs: ms('total_uptime_ms').notNull().default(0),
    /** The latest event time applied; an event before it is out of order and triggers a replay. */
    lastEventAt: ms('last_event_at'),
    /** Admitted on its own (its partner may be admitted as a whole instead): it serves the network (design §20). */
    admittedAt: admittedAt(),
    admittedBy: admittedBy(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('nodes_partner_external_idx').on(t.partnerId, t.externalId), uniqueIndex('nodes_public_id_idx').on(t.publicId)],
);

/** A connection session of a node: [connectedAt, disconnectedAt), open while disconnectedAt is null. */
export const nodeSessions = pgTable(
  'node_sessions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    nodeId: bigint('node_id', { mode: 'number' })
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    connectedAt: ms('connected_at').notNull(),
    disconnectedAt: ms('disconnected_at'),
    lastHeartbeatAt: ms('last_heartbeat_at'),
    openedBy: text('opened_by', { enum: ['connect', 'heartbeat'] }).notNull(),
  },
  (t) => [
    index('node_sessions_node_idx').on(t.nodeId, t.connectedAt),
    // At most one open session per node.
    uniqueIndex('node_sessions_open_idx')
      .on(t.nodeId)
      .where(sql`${t.disconnectedAt} is null`),
  ],
);

/** Closed-session uptime per node and hour, so a range query reads at most one row per hour. */
export const nodeUptimeHourly = pgTable(
  'node_uptime_hourly',
  {
    nodeId: bigint('node_id', { mode: 'number' })
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    hourStart: ms('hour_start').notNull(),
    uptimeMs: integer('uptime_ms').notNull(),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.hourStart] })],
);

/** Ingested node events, kept for idempotency on `event_id`. */
export const nodeEvents = pgTable(
  'node_events',
  {
    nodeId: bigint('node_id', { mode: 'number' })
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    /** The sender's event_id, or a generated one (`~` + uuid) when it gave none. */
    eventId: text('event_id').notNull(),
    type: text('type', { enum: ['connect', 'disconnect', 'heartbeat'] }).notNull(),
    at: ms('at').notNull(),
    /** Arrival order, to order events of the same instant. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    receivedAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.eventId] }), index('node_events_node_at_idx').on(t.nodeId, t.at)],
);

/** Aliases. Secrets that must be shown to their owner again are stored AES-256-GCM encrypted. */
export const aliases = pgTable(
  'aliases',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['live', 'conference'] }).notNull(),
    name: text('name'),
    passcodeEnc: text('passcode_enc'),
    jwtSecretEnc: text('jwt_secret_enc'),
    streamKeyEnc: text('stream_key_enc'),
    expiredAt: bigint('expired_at', { mode: 'number' }).notNull(),
    insertedAt: bigint('inserted_at', { mode: 'number' }).notNull(),
    /** Monotonic creation order for stable cursors. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
  },
  (t) => [index('aliases_org_seq_idx').on(t.orgId, t.seq), index('aliases_expired_idx').on(t.expiredAt)],
);

/** Small key/value settings (e.g. the encrypted demo credentials). */
export const appSettings = pgTable('app_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  encrypted: boolean('encrypted').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** What each API key used, for accounting: a row per kind of completion (model, streamed or not, outcome, platform) per 500 ms batch. */
export const chatUsage = pgTable(
  'chat_usage',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    apiKeyId: text('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    model: text('model').notNull(),
    /** How many completions this row counts (those alike within one batch), and their tokens. */
    requests: integer('requests').notNull().default(1),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
    /** What they cost the key, USD (design §17: tokens × the serving provider's prices), exact. */
    cost: numeric('cost').notNull().default('0'),
    stream: boolean('stream').notNull(),
    /** `finish_reason`; `aborted` / `error` when a reply begun did not complete; `failed` for an error reply (no tokens). */
    outcome: text('outcome').notNull(),
    /** The client's `sec-ch-ua-platform` header, if sent. */
    platform: text('platform'),
    createdAt: createdAt(),
  },
  (t) => [index('chat_usage_key_idx').on(t.apiKeyId, t.createdAt)],
);

/**
 * A provider: an OpenAI-compatible model server behind the chat API (design §10). The API key is
 * AES-256-GCM encrypted and never shown again. The health columns are written by whichever instance
 * sees a state change (a conditional update, so that one transition happens once) and by the prober.
 */
/** What a model server's list says of one of its models, where it says it (design §16). */
export type ModelFacts = { context_length?: number; owned_by?: string };

export const providers = pgTable(
  'providers',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** `http`: Triad calls `base_url`; `tunnel`: a node agent dialled in (base_url reads `tunnel://<node>`). */
    kind: text('kind', { enum: ['http', 'tunnel'] })
      .notNull()
      .default('http'),
    baseUrl: text('base_url').notNull(),
    /** A tunnel: the internal URL of the instance holding it (others forward its requests there); null when none does. */
    heldBy: text('held_by'),
    /** A tunnel: the version of the tunnel protocol its agent speaks (1 carries chat completions only); null otherwise. */
    tunnelVersion: integer('tunnel_version'),
    apiKeyEnc: text('api_key_enc'),
    /** Model allow-list (exposed ids); null serves every model the server lists. */
    models: jsonb('models').$type<string[] | null>(),
    /** `{exposed_id: upstream_id}`: serve a model under another name than the server's. */
    renames: jsonb('renames').$type<Record<string, string>>().notNull().default({}),
    /** What its models can do beyond text (`tools`, `vision`, `json_schema`, `logprobs`); null: not declared. */
    capabilities: jsonb('capabilities').$type<string[] | null>(),
    /** The API surfaces beyond Chat Completions its server speaks natively (`responses`, `messages`): passed through to it; null or none: translated. */
    endpoints: jsonb('endpoints').$type<string[] | null>(),
    weight: integer('weight').notNull().default(1),
    timeoutMs: integer('timeout_ms').notNull().default(60_000),
    /** USD per million prompt and completion tokens (design §17): what a completion costs its key, and what a linked node earns; null: free. */
    pricePrompt: numeric('price_prompt'),
    priceCompletion: numeric('price_completion'),
    enabled: boolean('enabled').notNull().default(true),
    nodeId: bigint('node_id', { mode: 'number' }).references(() => nodes.id, { onDelete: 'set null' }),
    state: text('state', { enum: ['unknown', 'up', 'down'] })
      .notNull()
      .default('unknown'),
    lastError: text('last_error'),
    latencyMs: integer('latency_ms'),
    failedProbes: integer('failed_probes').notNull().default(0),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    /** The server's own model ids at the last successful probe (kept when a probe fails). */
    catalogue: jsonb('catalogue').$type<string[]>().notNull().default([]),
    catalogueAt: timestamp('catalogue_at', { withTimezone: true }),
    /** What the server's list said of its models beyond their ids, by its own id: context length, owner (where it said). */
    modelInfo: jsonb('model_info').$type<Record<string, ModelFacts>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('providers_name_idx').on(t.name)],
);

/** What a node served, per hour: completions, tokens and earnings (from providers linked to it). */
export const nodeServedHourly = pgTable(
  'node_served_hourly',
  {
    nodeId: bigint('node_id', { mode: 'number' })
      .notNull()
      .references(() => nodes.id, { onDelete: 'cascade' }),
    hourStart: ms('hour_start').notNull(),
    requests: integer('requests').notNull(),
    tokens: bigint('tokens', { mode: 'number' }).notNull(),
    usd: numeric('usd').notNull(),
  },
  (t) => [primaryKey({ columns: [t.nodeId, t.hourStart] })],
);

/**
 * Attempts on each provider per hour, from every instance (the Providers page's share of the traffic
 * and error rate): `ok` when its first byte came, `failed` when it failed before (tried elsewhere or
 * refused). Kept as long as the statistics' events (TRIAD_RETENTION_DAYS).
 */
export const providerTrafficHourly = pgTable(
  'provider_traffic_hourly',
  {
    providerId: text('provider_id')
      .notNull()
      .references(() => providers.id, { onDelete: 'cascade' }),
    hourStart: ms('hour_start').notNull(),
    ok: integer('ok').notNull(),
    failed: integer('failed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.hourStart] })],
);

/** Instance administrators' tokens (`npm run admin -- admin-token create`), hashed like org tokens. */
export const adminTokens = pgTable(
  'admin_tokens',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    label: text('label'),
    createdAt: createdAt(),
    revokedAt: revokedAt(),
  },
  (t) => [uniqueIndex('admin_tokens_hash_idx').on(t.tokenHash)],
);

/**
 * Console sessions (design §11): the cookie holds 32 random bytes, this table their SHA-256. A session
 * is an organization's (made with one of its org tokens) or an instance administrator's (made with an
 * admin token); it ends when signed out, idle for 12 h, 7 days old, or when that token is revoked.
 */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    /** A public id (audit log, the session list); never the secret. */
    id: text('id').primaryKey(),
    secretHash: text('secret_hash').notNull(),
    role: text('role', { enum: ['org', 'admin'] }).notNull(),
    orgId: text('org_id').references(() => organizations.id, { onDelete: 'cascade' }),
    orgTokenId: text('org_token_id').references(() => orgTokens.id, { onDelete: 'cascade' }),
    adminTokenId: text('admin_token_id').references(() => adminTokens.id, { onDelete: 'cascade' }),
    address: text('address'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: revokedAt(),
  },
  (t) => [
    uniqueIndex('console_sessions_secret_idx').on(t.secretHash),
    index('console_sessions_org_idx').on(t.orgId),
    index('console_sessions_admin_idx').on(t.adminTokenId),
  ],
);

/** What was changed through the console or the admin API: who (a session or token id, never a secret), what, when, from where. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The organization the change concerns; null for instance-wide changes. */
    orgId: text('org_id'),
    /** `session:<id>`, `org_token:<id>`, `admin_token:<id>` or `admin_cli`. */
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    /** The object changed: `api_key:<id>`, `org_token:<id>`, `partner:<id>`, … */
    object: text('object'),
    detail: jsonb('detail').$type<Record<string, unknown>>(),
    address: text('address'),
    createdAt: createdAt(),
  },
  (t) => [index('audit_log_org_idx').on(t.orgId, t.id)],
);

/**
 * The request log (design §18): one row per completion or embedding, its outcome and figures, kept
 * TRIAD_REQUEST_LOG_DAYS. Never a prompt or a reply's text. Written behind the request path
 * (lib/observability/request-log.ts); `created_at` is when the request began.
 */
export const requestLog = pgTable(
  'request_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The request's X-Request-Id. */
    requestId: text('request_id').notNull(),
    orgId: text('org_id').notNull(),
    apiKeyId: text('api_key_id').notNull(),
    /** The API path it came by (`/api/v1/chat/completions`, `/api/v1/messages`, …). */
    endpoint: text('endpoint').notNull(),
    model: text('model').notNull(),
    /** The provider that served it (or the last one tried); null when none was. */
    provider: text('provider'),
    /** The HTTP status the client got (a stream that failed after its first byte: 200, with `error`). */
    status: integer('status').notNull(),
    stream: boolean('stream').notNull(),
    latencyMs: integer('latency_ms').notNull(),
    /** Time to the first content of a stream. */
    ttftMs: integer('ttft_ms'),
    promptTokens: integer('prompt_tokens').notNull(),
    completionTokens: integer('completion_tokens').notNull(),
    cost: numeric('cost').notNull().default('0'),
    /** Its error code, or how a begun reply ended badly (`aborted`, `error`); null when it succeeded. */
    error: text('error'),
    traceId: text('trace_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  // No index on created_at: rows come in its order, so the retention job finds the oldest by id (each index costs every row's write).
  (t) => [index('request_log_org_idx').on(t.orgId, t.id)],
);

/**
 * Chat latency per API key, model and hour, as a histogram: `count` completions took between the
 * bounds of log bucket `bucket` (lib/console/latency.ts). `kind` is `total` (request to last byte) or
 * `ttft` (request to the first content of a stream). Percentiles of any range add up the buckets.
 */
export const chatLatencyHourly = pgTable(
  'chat_latency_hourly',
  {
    apiKeyId: text('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    model: text('model').notNull(),
    hourStart: ms('hour_start').notNull(),
    kind: text('kind', { enum: ['total', 'ttft'] }).notNull(),
    bucket: integer('bucket').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.hourStart, t.model, t.kind, t.bucket] })],
);

/**
 * Responses of the Responses API (design §16), stored unless the request said `store: false`: the
 * response object as it was returned, whose organization it is, the response it continued, and when it
 * expires (TRIAD_RESPONSES_TTL_DAYS). No other organization ever reads it.
 */
export const responses = pgTable(
  'responses',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    apiKeyId: text('api_key_id'),
    previousResponseId: text('previous_response_id'),
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('responses_org_idx').on(t.orgId, t.id), index('responses_expires_idx').on(t.expiresAt)],
);

/** The items of a stored response, in order: its input (`previous_response_id` replays them) and its output; by item id for `item_reference`. */
export const responseItems = pgTable(
  'response_items',
  {
    responseId: text('response_id')
      .notNull()
      .references(() => responses.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    orgId: text('org_id').notNull(),
    itemId: text('item_id').notNull(),
    kind: text('kind', { enum: ['input', 'output'] }).notNull(),
    item: jsonb('item').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.responseId, t.seq] }), index('response_items_org_item_idx').on(t.orgId, t.itemId)],
);

/**
 * Budgets' spend (design §17), per scope (`key:<id>` or `org:<id>`) and period (its start, ms; 0 for a
 * `total` budget): what was spent, and what requests in flight have reserved (their most possible cost).
 * The database's budget store (lib/budgets/); with REDIS_URL the same figures live in Redis.
 */
export const budgetSpend = pgTable(
  'budget_spend',
  {
    scope: text('scope').notNull(),
    periodStart: ms('period_start').notNull(),
    spent: numeric('spent').notNull().default('0'),
    reserved: numeric('reserved').notNull().default('0'),
  },
  (t) => [primaryKey({ columns: [t.scope, t.periodStart] })],
);

/** A request's reservation, until it is settled or, its instance gone, it expires. */
export const budgetHolds = pgTable(
  'budget_holds',
  {
    id: text('id').notNull(),
    scope: text('scope').notNull(),
    periodStart: ms('period_start').notNull(),
    amount: numeric('amount').notNull(),
    expiresAt: ms('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.id, t.scope] }), index('budget_holds_expiry_idx').on(t.scope, t.expiresAt)],
);
