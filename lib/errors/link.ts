import { z } from 'zod';
import { ApiError, type WireFormat, type ErrorExamples } from '@/lib/core/errors';

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

/** What each status means on the statistics, aliases and Triad's own routes, with an error as the server makes it. */
export const linkErrorExamples: ErrorExamples = {
  400: {
    meaning: 'A parameter or field is missing or malformed (`detail` says which); for aliases also an alias that does not exist.',
    error: invalidParameters('started_at 1732000000 looks like seconds since the epoch; timestamps here are milliseconds (1732000000000)'),
  },
  401: {
    meaning: 'No credential, or one that is wrong, rotated or revoked.',
    error: unauthorized('the partner secret is wrong or was rotated'),
  },
  403: {
    meaning: 'The credential may not do this (a suspended organization, a call without its CSRF token…).',
    error: forbidden('the organization is suspended'),
  },
  404: { meaning: 'No such object here.', error: notFound('no partner with this id') },
  409: { meaning: 'It conflicts with what is stored (a name taken).', error: conflict('a partner with this name exists') },
  413: { meaning: 'The body is larger than the server takes.', error: payloadTooLarge(1_048_576) },
  429: { meaning: 'Over the rate for this credential or address; `Retry-After` says when to retry.', error: tooManyRequests(30) },
  500: { meaning: 'An error of the server itself (logged with the request id).', error: internalError() },
  503: { meaning: 'The database cannot be reached, or the server is starting or stopping; retry shortly.', error: serviceUnavailable() },
};
