import { z } from 'zod';
import { DECIMAL_TEXT } from '@/lib/core/decimal';
import { CAPABILITIES, NATIVE_ENDPOINTS } from '@/lib/chat/capabilities';

/*
 * Providers on the wire (design §10): what the admin API and CLI accept, and what they show. One
 * schema for both: the CLI's flags arrive as text and are read by the same fields (lists as
 * `a,b`, renames as `exposed=upstream,…`, booleans as true/false).
 */

export const providerName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, '1–63 letters, digits, dot, underscore or hyphen, starting with a letter or digit');
const modelId = z.string().trim().min(1, 'a model id must not be empty').max(200, 'a model id is at most 200 characters');

const baseUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password && !u.search && !u.hash;
    } catch {
      return false;
    }
  }, 'base_url must be an http(s) URL without credentials, query or fragment (e.g. http://127.0.0.1:11434/v1)')
  .transform((v) => v.replace(/\/+$/, ''));

/** Text from the CLI, or the JSON type itself from the API. */
const listOf = <T extends z.ZodType>(item: T) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z.array(item).max(500, 'at most 500 models'),
  );
const renames = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? Object.fromEntries(
          v
            .split(',')
            .filter((s) => s.trim())
            .map((pair) => {
              const i = pair.indexOf('=');
              return i < 0 ? [pair.trim(), ''] : [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
            }),
        )
      : v,
  z
    .record(modelId, modelId)
    .refine((r) => Object.keys(r).length <= 500, 'at most 500 renames')
    .describe('{exposed_id: upstream_id}'),
);
const bool = z.preprocess(
  (v) => (v === 'true' || v === '1' || v === 'yes' ? true : v === 'false' || v === '0' || v === 'no' ? false : v),
  z.boolean({ error: 'enabled must be true or false' }),
);
/** A price: decimal text (a JSON number is taken as its text); `none` or '' (on the CLI) or null: free. */
const price = (name: string, unit: string, example: string) =>
  z.preprocess(
    (v) => (v === 'none' || v === '' ? null : typeof v === 'number' ? String(v) : v),
    z.string().regex(DECIMAL_TEXT, `${name} must be a non-negative decimal (${unit}), e.g. ${example}`).nullable(),
  );
/**
 * What a provider's models can do beyond text (lib/chat/capabilities.ts). Declared, they steer routing:
 * a request that needs one skips providers whose list lacks it. Not declared (null): the provider decides.
 * A list (`tools,vision` on the CLI; `none`: declares none), or null (`auto` on the CLI): not declared. */
const capabilities = z.preprocess(
  (v) => (v === 'auto' ? null : v === 'none' ? [] : v),
  listOf(z.enum(CAPABILITIES, { error: `a capability is one of ${CAPABILITIES.join(', ')}` }))
    .transform((l) => [...new Set(l)])
    .nullable(),
);

/**
 * The API surfaces beyond Chat Completions the provider's server speaks natively (design §16):
 * `responses` (OpenAI's Responses API), `messages` (Anthropic's Messages API). A request of such a
 * surface is passed through to it as the client wrote it, rather than translated. A list, `none` or
 * null: none (everything translated onto Chat Completions).
 */
const endpoints = z.preprocess(
  (v) => (v === 'none' ? null : v),
  listOf(z.enum(NATIVE_ENDPOINTS, { error: `an endpoint is one of ${NATIVE_ENDPOINTS.join(', ')}` }))
    .transform((l) => (l.length ? [...new Set(l)] : null))
    .nullable(),
);

/** A partner node, by its partner and the interface's partner_node_id. */
const nodeRef = z.object({ partner_id: z.string().trim().min(1).max(200), partner_node_id: z.string().trim().min(1).max(200) });

const fields = {
  base_url: baseUrl,
  /** Write-only: stored encrypted, never shown again. null (or "none" on the CLI) removes it. */
  api_key: z.preprocess((v) => (v === 'none' ? null : v), z.string().min(1).max(4096).nullable()),
  models: z.preprocess((v) => (v === 'none' ? null : v), listOf(modelId).nullable()),
  renames,
  weight: z.coerce.number({ error: 'weight must be an integer from 1 to 1000' }).int().min(1).max(1000),
  timeout_ms: z.coerce.number({ error: 'timeout_ms must be an integer from 100 to 600000' }).int().min(100).max(600_000),
  /** USD per million prompt tokens (design §17). */
  price_prompt: price('price_prompt', 'USD per million tokens', '0.15'),
  /** USD per million completion tokens. */
  price_completion: price('price_completion', 'USD per million tokens', '0.6'),
  /** Shorthand: USD per 1 000 tokens, both directions (price_prompt and price_completion given beside it win). */
  price_per_1k: price('price_per_1k', 'USD per 1 000 tokens', '0.002'),
  enabled: bool,
  node: nodeRef.nullable(),
  capabilities,
  endpoints,
};

export const providerCreateSchema = z.strictObject({
  name: providerName,
  base_url: fields.base_url,
  api_key: fields.api_key.optional(),
  models: fields.models.optional(),
  renames: fields.renames.optional(),
  weight: fields.weight.default(1),
  timeout_ms: fields.timeout_ms.default(60_000),
  price_prompt: fields.price_prompt.optional(),
  price_completion: fields.price_completion.optional(),
  price_per_1k: fields.price_per_1k.optional(),
  enabled: fields.enabled.default(true),
  node: fields.node.optional(),
  capabilities: fields.capabilities.optional(),
  endpoints: fields.endpoints.optional(),
});
export type ProviderCreate = z.infer<typeof providerCreateSchema>;

export const providerUpdateFields = z.strictObject({
  name: providerName.optional(),
  base_url: fields.base_url.optional(),
  api_key: fields.api_key.optional(),
  models: fields.models.optional(),
  renames: fields.renames.optional(),
  weight: fields.weight.optional(),
  timeout_ms: fields.timeout_ms.optional(),
  price_prompt: fields.price_prompt.optional(),
  price_completion: fields.price_completion.optional(),
  price_per_1k: fields.price_per_1k.optional(),
  enabled: fields.enabled.optional(),
  node: fields.node.optional(),
  capabilities: fields.capabilities.optional(),
  endpoints: fields.endpoints.optional(),
});
export const providerUpdateSchema = providerUpdateFields.refine(
  (v) => Object.values(v).some((x) => x !== undefined),
  'give at least one field to change',
);
export type ProviderUpdate = z.infer<typeof providerUpdateSchema>;

export const providerParams = z.object({ name: providerName });

/** A provider as the admin API shows it: never its API key. */
export const providerViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** `http`: Triad calls base_url; `tunnel`: a node agent dialled in (design §14). */
  kind: z.enum(['http', 'tunnel']),
  base_url: z.string(),
  has_api_key: z.boolean(),
  models: z.array(z.string()).nullable(),
  renames: z.record(z.string(), z.string()),
  weight: z.number().int(),
  timeout_ms: z.number().int(),
  /** USD per million prompt / completion tokens (null: free). */
  price_prompt: z.string().nullable(),
  price_completion: z.string().nullable(),
  /** The two as USD per 1 000 tokens when they are the same; null otherwise. */
  price_per_1k: z.string().nullable(),
  enabled: z.boolean(),
  node: nodeRef.nullable(),
  /**
   * Whom it serves (design §20): null for a provider added by URL (every organization); for a node's
   * tunnel, its organization, and `private` (that organization only) or `admitted` to the network.
   */
  tenancy: z
    .object({
      org_id: z.string().nullable(),
      network: z.enum(['private', 'admitted']),
      admitted_at: z.string().nullable(),
      admitted_by: z.string().nullable(),
      /** Admitted on its own, or with its whole partner. */
      admitted_as: z.enum(['node', 'partner']).nullable(),
    })
    .nullable(),
  /** What its models can do, as declared; null: not declared (the provider decides). */
  capabilities: z.array(z.enum(CAPABILITIES)).nullable(),
  /** The surfaces its server speaks natively, passed through to it (null: none; everything translated). */
  endpoints: z.array(z.enum(NATIVE_ENDPOINTS)).nullable(),
  health: z.object({
    state: z.enum(['unknown', 'up', 'down']),
    last_error: z.string().nullable(),
    latency_ms: z.number().int().nullable(),
    checked_at: z.string().nullable(),
  }),
  /** The models it serves, as clients name them (from its last successful probe). */
  serves: z.array(z.string()),
  /**
   * In the list: its attempts over the last 24 hours (the hour under way included), from every
   * instance; its share of all providers' attempts, and the share of its own that failed before a
   * first byte (null with none).
   */
  traffic: z
    .object({
      hours: z.number().int(),
      requests: z.number().int(),
      failed: z.number().int(),
      share: z.number().min(0).max(1),
      error_rate: z.number().min(0).max(1).nullable(),
    })
    .optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ProviderView = z.infer<typeof providerViewSchema>;

/** `POST /api/admin/providers/{name}/test`: one probe, now. */
export const providerTestSchema = z.object({
  ok: z.boolean(),
  latency_ms: z.number().int(),
  models: z.array(z.string()),
  error: z.string().nullable(),
});
