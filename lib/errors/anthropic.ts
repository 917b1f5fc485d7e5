import { z } from 'zod';
import { ApiError, type WireFormat, type ErrorExamples } from '@/lib/core/errors';

/**
 * Anthropic's error shape, for the Messages API (design §16): `{"type":"error","error":{"type","message"}}`,
 * the error type following the status as Anthropic's reference lists them. Errors made for the other
 * formats (the pipeline's: no provider, an unknown model…) are written in it too.
 */
const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
};
export const anthropicErrorSchema = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string() }),
});

export function anthropicErrorBody(e: ApiError): z.infer<typeof anthropicErrorSchema> {
  // A chat-format error's sentence is its message; a link-format one's is its detail.
  const message = e.type === undefined ? (e.detail ?? e.message) : e.message;
  return { type: 'error', error: { type: TYPES[e.status] ?? (e.status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
}

const error = (status: number, message: string, headers?: Record<string, string>) =>
  new ApiError(status, message, { type: TYPES[status] ?? 'api_error', code: TYPES[status] ?? 'api_error', headers });
export const invalidMessagesRequest = (message: string) => error(400, message);

export const anthropicFormat: WireFormat = {
  body: anthropicErrorBody,
  // The detail names the field already (`max_tokens: …`, lib/core/input.ts); Anthropic's shape has no field of its own for it.
  badInput: (detail) => error(400, detail),
  unauthorized: (detail) => error(401, detail),
  forbidden: (detail) => error(403, detail),
  tooManyRequests: (retryAfterS, headers, why = 'this API key') =>
    error(429, `Rate limit reached for ${why}. Retry in ${retryAfterS} s.`, { ...headers, 'Retry-After': String(retryAfterS) }),
  bodyTooLarge: (limit) => error(413, `The request body exceeds ${limit} bytes.`),
  unavailable: () => error(503, 'The service is briefly unavailable; retry shortly.', { 'Retry-After': '5' }),
  internal: () => error(500, 'Internal server error.'),
  apiKeyHeader: 'x-api-key',
};

/** What each status means on the Messages API, with an error as the server makes it (Anthropic's error types). */
export const anthropicErrorExamples: ErrorExamples = {
  400: {
    meaning: 'The request is not valid: a field is missing, of the wrong type or out of range.',
    error: invalidMessagesRequest('max_tokens: Field required'),
  },
  401: {
    meaning: 'No API key (`x-api-key` or `Authorization: Bearer`), or one that is unknown or revoked.',
    error: error(401, 'invalid x-api-key'),
  },
  402: {
    meaning: "The key's or its organization's budget cannot cover the most the request could cost (a billing_error).",
    error: error(402, "This API key's budget per day of $0.50 cannot cover this request (up to $0.0131): $0.0042 remains."),
  },
  403: { meaning: 'The key may not do this (its organization is suspended…).', error: error(403, 'The organization is suspended.') },
  404: { meaning: 'No such model here.', error: error(404, 'model: claude-unknown') },
  413: { meaning: 'The body is larger than the server takes.', error: error(413, 'The request body exceeds 10485760 bytes.') },
  429: {
    meaning: "Over the key's rate; `Retry-After` says when to retry.",
    error: error(429, 'Rate limit reached for this API key. Retry in 12 s.'),
  },
  500: { meaning: 'An error of the server itself.', error: error(500, 'Internal server error.') },
  502: { meaning: 'The model server failed or could not be reached.', error: error(502, 'The model server could not be reached.') },
  503: {
    meaning: 'No provider of the model is in service now; retry shortly.',
    error: error(503, 'The service is briefly unavailable; retry shortly.'),
  },
};
