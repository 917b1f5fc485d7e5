import { z } from 'zod';

/**
 * The wire format of the statistics and alias groups (interface part 7), also used by Triad's
 * own operational routes: `{ "error": { "message": string, "status": integer, "detail"?: string } }`.
 * `message` is one of the interface's fixed texts; `detail` says, for a person, what was wrong.
 */
export class LinkError extends Error {
  override name = 'LinkError';
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const invalidParameters = (detail?: string) => new LinkError(400, 'INVALID_PARAMETERS', detail);
export const unauthorized = (detail?: string) => new LinkError(401, 'UNAUTHORIZED', detail);
/** The alias group's 400: unknown id, no access or malformed request look the same (interface 4.7). */
export const forbidden = (detail?: string) => new LinkError(403, 'FORBIDDEN', detail);
export const aliasNotFound = (detail?: string) => new LinkError(400, 'NOT_FOUND', detail);
export const notFound = (detail?: string) => new LinkError(404, 'NOT FOUND', detail);
export const payloadTooLarge = (limit: number) => new LinkError(413, 'PAYLOAD_TOO_LARGE', `the request body exceeds ${limit} bytes`);
export const tooManyRequests = (retryAfterS: number, headers: Record<string, string> = {}) =>
  new LinkError(429, 'TOO_MANY_REQUESTS', `rate limit exceeded; retry in ${retryAfterS} s`, {
    ...headers,
    'Retry-After': String(retryAfterS),
  });
/** The JWT flow's 404 (interface 4.9): the alias a token was presented for does not exist. */
export const aliasNotFoundForJwt = () => new LinkError(404, 'Alias not found');
export const internalError = () => new LinkError(500, 'INTERNAL_ERROR');

/** The body of every error of these groups. */
export const linkErrorSchema = z.object({
  error: z.object({ message: z.string(), status: z.number().int(), detail: z.string().optional() }),
});

export function linkErrorBody(e: LinkError): z.infer<typeof linkErrorSchema> {
  return { error: { message: e.message, status: e.status, ...(e.detail ? { detail: e.detail } : {}) } };
}

export function linkErrorResponse(e: LinkError): Response {
  return Response.json(linkErrorBody(e), { status: e.status, headers: e.headers });
}
