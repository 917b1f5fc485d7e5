import { z } from 'zod';
import { DECIMAL_TEXT } from '@/lib/core/decimal';

/*
 * The statistics group's request schemas (interface 4.2–4.4, design §5 and §7), shared by the route
 * handlers and the dashboard. Query parameters arrive as text: integers must be plain digits.
 */

/** Year 9999 in milliseconds: no date arithmetic overflows below it. */
export const MAX_MS = 253_402_300_799_999;
const msText = (name: string) =>
  z
    .string()
    .regex(/^\d{1,15}$/, `${name} must be a non-negative integer (Unix milliseconds)`)
    .transform(Number)
    .refine((n) => n <= MAX_MS, `${name} is too large`);

export const secretParam = z.string({ error: 'secret (the partner secret) is required' }).min(1, 'secret must not be empty').max(500);
export const partnerNodeId = z.string().min(1, 'partner_node_id must not be empty').max(200, 'partner_node_id is at most 200 characters');
/** `partner_node_id[]` as one or several values. */
const nodeIdList = (max: number) =>
  z
    .union([partnerNodeId, z.array(partnerNodeId)], { error: 'partner_node_id[] is required' })
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(z.array(partnerNodeId).min(1, 'give at least one partner_node_id[]').max(max, `at most ${max} partner_node_id[] values`));

const rangeParams = { started_at: msText('started_at').optional(), ended_at: msText('ended_at').optional() };

export const listNodesQuery = z.object({
  secret: secretParam,
  partner_node_id: partnerNodeId.optional(),
  after: z.string().max(200).optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'limit must be an integer from 1 to 500')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 500, 'limit must be an integer from 1 to 500')
    .optional(),
});

export const uptimeQuery = z.object({ secret: secretParam, partner_node_id: partnerNodeId, ...rangeParams });
export const uptimesQuery = z.object({ secret: secretParam, partner_node_id: nodeIdList(5), ...rangeParams });
export const detailsQuery = z.object({ secret: secretParam, partner_node_id: nodeIdList(100) });
export const detailQuery = z.object({ secret: secretParam, partner_node_id: partnerNodeId });
export const summaryQuery = z.object({ secret: secretParam });
export const seriesQuery = z.object({
  secret: secretParam,
  partner_node_id: partnerNodeId,
  started_at: msText('started_at'),
  ended_at: msText('ended_at'),
  bucket: z.enum(['hour', 'day']).default('hour'),
});

export const registerNodeBody = z.object({
  id: partnerNodeId,
  secret: secretParam,
  /** Beyond the reference: display name and address. */
  name: z.string().trim().min(1).max(200).optional(),
  ip: z.string().trim().max(64).optional(),
});

const decimalText = (name: string) => z.string().regex(DECIMAL_TEXT, `${name} must be a non-negative decimal text such as "12.5"`);

export const nodeEventSchema = z.object({
  partner_node_id: partnerNodeId,
  type: z.enum(['connect', 'disconnect', 'heartbeat']),
  at: z.number().int('at must be an integer (Unix milliseconds)').min(0).max(MAX_MS),
  event_id: z.string().min(1).max(200).optional(),
  ip: z.string().trim().max(64).optional(),
  unit_shared: decimalText('unit_shared').optional(),
  usd_earned: decimalText('usd_earned').optional(),
});
export type NodeEventInput = z.infer<typeof nodeEventSchema>;

export const MAX_EVENTS_PER_BATCH = 5000;
export const nodeEventsBody = z.object({
  secret: secretParam,
  events: z
    .array(nodeEventSchema)
    .min(1, 'events must not be empty')
    .max(MAX_EVENTS_PER_BATCH, `at most ${MAX_EVENTS_PER_BATCH} events a batch`),
});

/** Wire shapes (interface 2.5–2.7, and Triad's own summary and series). */
const connectionStatus = z.enum(['connected', 'disconnected']);
export const nodeEntrySchema = z.object({
  ip: z.string(),
  external_id: z.string(),
  time_connected: z.number().int(),
  unit_shared: z.string(),
  usd_earned: z.string(),
  public_id: z.string(),
  public_name: z.string(),
  connection_status: connectionStatus,
  /** Beyond the interface (design §20): `private`, it serves its own organization only; `admitted` to serve every organization. */
  network: z.enum(['private', 'admitted']),
});
export type NodeEntry = z.infer<typeof nodeEntrySchema>;
export const nodePageSchema = z.object({
  metadata: z.object({ after: z.string().nullable(), total_count: z.number().int() }),
  entries: z.array(nodeEntrySchema),
});
export type NodePage = z.infer<typeof nodePageSchema>;
export const nodeStatusSchema = z.object({
  connection_status: connectionStatus,
  total_uptime: z.number().int(),
  partner_node_id: z.string(),
});
export type NodeStatus = z.infer<typeof nodeStatusSchema>;
export const uptimeSchema = z.object({ uptime: z.number().int(), partner_node_id: z.string() });
export const seriesPointSchema = z.object({
  start: z.number().int(),
  uptime: z.number().int(),
  /** What the node served in the bucket through a provider linked to it: completions, tokens, USD earned (decimal text). */
  served: z.object({ requests: z.number().int(), tokens: z.number().int(), usd: z.string() }),
});
export type SeriesPoint = z.infer<typeof seriesPointSchema>;
export const seriesSchema = z.object({
  partner_node_id: z.string(),
  bucket_ms: z.number().int(),
  started_at: z.number().int(),
  ended_at: z.number().int(),
  /** When the figures were taken: an hour still under way (or ahead) counts up to here only. */
  measured_at: z.number().int(),
  points: z.array(seriesPointSchema),
});
export type Series = z.infer<typeof seriesSchema>;
export const summarySchema = z.object({
  nodes: z.number().int(),
  connected: z.number().int(),
  total_uptime: z.number().int(),
  unit_shared: z.string(),
  usd_earned: z.string(),
});
export type Summary = z.infer<typeof summarySchema>;

/** `GET /api/v1/partner/earnings` (design §17): a node's statement, per UTC day or calendar month. */
export const statementQuery = z.object({
  secret: secretParam,
  partner_node_id: partnerNodeId,
  started_at: msText('started_at').optional(),
  ended_at: msText('ended_at').optional(),
  bucket: z.enum(['day', 'month'], { error: 'bucket must be day or month' }).default('day'),
});
export const statementPeriodSchema = z.object({
  /** The period's start and end (Unix ms, end exclusive): a whole UTC day or calendar month. */
  start: z.number().int(),
  end: z.number().int(),
  requests: z.number().int(),
  tokens: z.number().int(),
  /** What the node earned in it, USD (exact decimal text). */
  usd_earned: z.string(),
});
export const statementSchema = z.object({
  partner_node_id: z.string(),
  bucket: z.enum(['day', 'month']),
  /** The range, widened to whole periods. */
  started_at: z.number().int(),
  ended_at: z.number().int(),
  periods: z.array(statementPeriodSchema),
  /** The periods' sums. */
  total: z.object({ requests: z.number().int(), tokens: z.number().int(), usd_earned: z.string() }),
  /** Everything the node has earned (its `usd_earned`): the statement of its whole history adds up to it. */
  usd_earned: z.string(),
});
export type Statement = z.infer<typeof statementSchema>;
