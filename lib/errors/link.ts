import { z } from 'zod';
import { ApiError, type WireFormat } from '@/lib/core/errors';

/**
 * The wire format of the statistics and alias groups (interface part 7), also used by Triad's
 * own operational routes: `{ "error": { "message": string, "status": integer, "detail"?: string } }`.
 * `message` is one of the interface's fixed texts; `detail` says, for a person, what was wrong.
 */
export const invalidParameters = (detail?: string) => new ApiError(400, 'INVALID_PARAMETERS', { detail });
export const unauthorized = (detail?: string) => new ApiError(401, 'UNAUTHORIZED', { detail });
/** Refused whoever asks (a Host that does not name this machine on a local route). */
export const forbidden = (detail?: string) => new ApiError(403, 'FORBIDDEN', { detail });
/** The alias group's 400: unknown id, no access or malformed request look the same (interface 4.7). */
export const aliasNotFound = (detail?: string) => new ApiError(400, 'NOT_FOUND', { detail });
export const notFound = (detail?: string) => new ApiError(404, 'NOT FOUND', { detail });
/** The thing to create exists already (a provider's name). */
export const conflict = (detail?: string) => new ApiError(409, 'CONFLICT', { detail });
export const payloadTooLarge = (limit: number) =>
  new ApiError(413, 'PAYLOAD_TOO_LARGE', { detail: `the request body exceeds ${limit} bytes` });
export const tooManyRequests = (retryAfterS: number, headers: Record<string, string> = {}, why?: string) =>
  new ApiError(429, 'TOO_MANY_REQUESTS', {
    detail: `${why ? `${why}: ` : ''}rate limit exceeded; retry in ${retryAfterS} s`,
    headers: { ...headers, 'Retry-After': String(retryAfterS) },
  });
/** The JWT flow's 404 (interface 4.9): the alias a token was presented for does not exist. */
export const aliasNotFoundForJwt = () => new ApiError(404, 'Alias not found');
export const internalError = () => new ApiError(500, 'INTERNAL_ERROR');
export const serviceUnavailable = (detail = 'the database cannot be reached; retry shortly') =>
  new ApiError(503, 'SERVICE_UNAVAILABLE', { detail, headers: { 'Retry-After': '2' } });

/** The body of every error of these groups. */
export const linkErrorSchema = z.object({
  error: z.object({ message: z.string(), status: z.number().int(), detail: z.string().optional() }),
});

export function linkErrorBody(e: ApiError): z.infer<typeof linkErrorSchema> {
  return { error: { message: e.message, status: e.status, ...(e.detail ? { detail: e.detail } : {}) } };
}

export const linkFormat: WireFormat = {
  body: linkErrorBody,
  badInput: (detail) => invalidParameters(detail),
  unauthorized,
  forbidden,
  tooManyRequests,
  bodyTooLarge: payloadTooLarge,
  unavailable: serviceUnavailable,
  internal: internalError,
};
