import { z } from 'zod';

/*
 * The console's request schemas (design §11), shared by the route handlers, the OpenAPI document and
 * the dashboard's client.
 */
const name = z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters');
export const signInBody = z.object({
  token: z.string({ error: 'token (an org token or an admin token) is required' }).trim().min(1, 'token must not be empty').max(500),
});
export const apiKeyCreateBody = z.object({
  name,
  rpm: z.number().int().min(1, 'rpm is at least 1').max(1_000_000, 'rpm is at most 1000000').optional(),
});
export const namedCreateBody = z.object({ name });
export const renameNodeBody = z.object({ name });
export const idParams = z.object({ id: z.string().min(1).max(200) });
export const nodeParams = z.object({ id: z.string().min(1).max(200), nodeId: z.string().min(1).max(200) });

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
    group_by: z.enum(['key', 'model'], { error: 'group_by is key or model' }).default('key'),
    api_key_id: z.string().min(1).max(200).optional(),
    model: z.string().min(1).max(200).optional(),
  })
  .refine((q) => q.started_at === undefined || q.ended_at === undefined || q.started_at < q.ended_at, 'started_at must be before ended_at');
export const auditQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, 'limit must be an integer from 1 to 200')
    .transform(Number)
    .refine((n) => n >= 1 && n <= 200, 'limit must be an integer from 1 to 200')
    .default(50),
  before: z
    .string()
    .regex(/^\d{1,18}$/, 'before must be an entry id')
    .transform(Number)
    .optional(),
});
export const orgCreateBody = z.object({ name });
export const orgUpdateBody = z.object({ suspended: z.boolean({ error: 'suspended (true or false) is required' }) });
