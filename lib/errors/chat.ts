import { z } from 'zod';
import { ApiError, type WireFormat, type ErrorExamples } from '@/lib/core/errors';

/**
 * The chat group's wire format (interface part 7, OpenAI's convention):
 * `{ "error": { "message": string, "type": string, "code": string, "param"?: string } }`.
 */
export const invalidRequest = (message: string, param?: string) =>
  new ApiError(400, message, { type: 'invalid_request_error', code: 'invalid_request', param });
export const invalidApiKey = (message = 'Invalid API key. Send it as `Authorization: Bearer <API_KEY>`.') =>
  new ApiError(401, message, { type: 'invalid_request_error', code: 'invalid_api_key' });
/** A field the model that would serve the request cannot do (tools, images, a JSON schema…: design §13). */
export const unsupportedParameter = (param: string, message: string) =>
  new ApiError(400, message, { type: 'invalid_request_error', code: 'unsupported_parameter', param });
export const permissionDenied = (message: string) => new ApiError(403, message, { type: 'permission_error', code: 'forbidden' });
/** `serverSaid`: a model server's own 404 (kept in `detail`, which this format does not write: see modelNotServed). */
export const modelNotFound = (model: string, serverSaid?: string) =>
  new ApiError(404, `The model \`${model}\` does not exist. GET /api/v1/models lists the models served here.`, {
    type: 'invalid_request_error',
    code: 'model_not_found',
    param: 'model',
    detail: serverSaid,
  });
/**
 * A model this server lists whose model servers, asked for it, answered 404 (an embeddings request for a
 * chat model, a server whose models changed since the catalogue was read): what they said, in `detail`.
 */
export const modelNotServed = (model: string, endpoint: 'chat' | 'embeddings', serverSaid: string) =>
  new ApiError(
    404,
    endpoint === 'embeddings'
      ? `The model \`${model}\` is served here, but not for embeddings: its model servers answered 404 to the embeddings request (${serverSaid}).`
      : `The model \`${model}\` is listed here, but its model servers answered 404 for it (${serverSaid}).`,
    { type: 'invalid_request_error', code: 'model_not_found', param: 'model' },
  );
/** A stored response (the Responses API) the key's organization has not: 404, exactly as for an id that never existed. */
/** The API key may not use this model (its allow-list, design §17). */
export const modelNotAllowed = (model: string) =>
  new ApiError(403, `This API key may not use the model \`${model}\`.`, {
    type: 'permission_error',
    code: 'model_not_allowed',
    param: 'model',
  });
/** A budget (the key's or its organization's, design §17) that cannot cover the request's most possible cost. */
export const budgetExceeded = (message: string) => new ApiError(402, message, { type: 'insufficient_quota', code: 'budget_exceeded' });
/** The budget store (Redis) cannot be reached: a budget cannot be checked, so nothing is sent. */
export const budgetUnavailable = () =>
  new ApiError(503, 'Budgets cannot be checked right now (their store is unreachable); try again shortly.', {
    type: 'server_error',
    code: 'budget_store_unavailable',
  });
export const responseNotFound = (id: string) =>
  new ApiError(404, `Response with id '${id}' not found.`, { type: 'invalid_request_error', code: 'not_found' });
/** A `previous_response_id` or `item_reference` that names nothing the organization stored. */
export const storedNotFound = (what: 'Previous response' | 'Item', id: string, param: string) =>
  new ApiError(400, `${what} with id '${id}' not found.`, {
    type: 'invalid_request_error',
    code: what === 'Item' ? 'item_not_found' : 'previous_response_not_found',
    param,
  });
export const bodyTooLarge = (limit: number) =>
  new ApiError(413, `The request body exceeds ${limit} bytes.`, { type: 'invalid_request_error', code: 'request_too_large' });
/** Over a rate: by default the API key's own (`why` names another: "unknown API keys from this address"). */
export const rateLimited = (retryAfterS: number, headers: Record<string, string>, why = 'this API key') =>
  new ApiError(429, `Rate limit reached for ${why}. Retry in ${retryAfterS} s.`, {
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    headers: { ...headers, 'Retry-After': String(retryAfterS) },
  });
/** An API key past its completions in flight (TRIAD_MAX_CONCURRENT_PER_KEY). */
export const tooManyConcurrent = (max: number) =>
  new ApiError(429, `This API key has ${max} chat completions in flight, its most at once. Retry when one ends.`, {
    type: 'rate_limit_error',
    code: 'concurrency_limit_exceeded',
    headers: { 'Retry-After': '1' },
  });
/** This instance is serving its most completions at once (TRIAD_MAX_CONCURRENT). */
export const overloaded = () =>
  new ApiError(503, 'The server is serving its most chat completions at once. Retry shortly.', {
    type: 'api_error',
    code: 'server_overloaded',
    headers: { 'Retry-After': '1' },
  });
export const upstreamUnreachable = (detail: string) =>
  new ApiError(502, `The model server could not be reached: ${detail}`, { type: 'api_error', code: 'upstream_unreachable' });
export const upstreamFailed = (status: number, detail: string) =>
  new ApiError(502, `The model server answered ${status}: ${detail}`, { type: 'api_error', code: 'upstream_error' });
/** A model server's own 429, when no other provider could take the request. */
export const upstreamBusy = (retryAfterS: number) =>
  new ApiError(429, `The model server is over its rate limit. Retry in ${retryAfterS} s.`, {
    type: 'rate_limit_error',
    code: 'upstream_rate_limited',
    headers: { 'Retry-After': String(retryAfterS) },
  });
/** Providers serve the model, but none is in service now (design §10). */
export const noProviderAvailable = (model: string, retryAfterS: number) =>
  new ApiError(503, `No provider of the model \`${model}\` is available now. Retry in ${retryAfterS} s.`, {
    type: 'api_error',
    code: 'no_provider_available',
    headers: { 'Retry-After': String(retryAfterS) },
  });
/** The model server sent nothing within its time limit (before the first byte, or between chunks). */
export const upstreamTimeout = (detail: string) =>
  new ApiError(502, `The model server timed out: ${detail}`, { type: 'api_error', code: 'upstream_timeout' });
/** The database (credentials, usage) cannot be reached. */
export const databaseUnavailable = () =>
  new ApiError(503, 'The service cannot reach its database. Retry shortly.', {
    type: 'api_error',
    code: 'service_unavailable',
    headers: { 'Retry-After': '2' },
  });
export const internalChatError = () =>
  new ApiError(500, 'The server had an error while processing the request.', { type: 'api_error', code: 'internal_error' });

/** The body of every error of the chat group. */
export const chatErrorSchema = z.object({
  error: z.object({ message: z.string(), type: z.string(), code: z.string(), param: z.string().optional() }),
});

/** An error in this shape; one made for the other format (a fixed text and a detail) keeps its detail as the sentence. */
export function chatErrorBody(e: ApiError): z.infer<typeof chatErrorSchema> {
  const foreign = e.type === undefined;
  return {
    error: {
      message: foreign ? (e.detail ?? e.message) : e.message,
      type: e.type ?? (e.status >= 500 ? 'api_error' : 'invalid_request_error'),
      code: e.code ?? e.message.toLowerCase().replaceAll(' ', '_'),
      ...(e.param ? { param: e.param } : {}),
    },
  };
}

export const chatFormat: WireFormat = {
  body: chatErrorBody,
  badInput: invalidRequest,
  unauthorized: (detail) => invalidApiKey(detail),
  forbidden: permissionDenied,
  tooManyRequests: (retryAfterS, headers, why) => rateLimited(retryAfterS, headers, why),
  bodyTooLarge,
  unavailable: databaseUnavailable,
  internal: internalChatError,
};

/** What each status means on the chat group's routes, with an error as the server makes it (the API reference's examples). */
export const chatErrorExamples: ErrorExamples = {
  400: {
    meaning: 'The request is not valid: a field is missing, of the wrong type or out of range; `param` names it.',
    error: invalidRequest('messages: at least one message is required', 'messages'),
  },
  401: { meaning: 'No API key, or one that is unknown or revoked.', error: invalidApiKey() },
  402: {
    meaning:
      "The key's or its organization's budget cannot cover the most the request could cost; the message says what remains and when it resets.",
    error: budgetExceeded(
      "This API key's budget per day of $0.50 cannot cover this request (up to $0.0131): $0.0042 remains, whole again at 2026-11-27T00:00:00.000Z. A smaller max_tokens reserves less.",
    ),
  },
  403: {
    meaning: 'The key may not do this: its organization is suspended, or the model or route is not allowed to it.',
    error: permissionDenied('The organization is suspended.'),
  },
  404: { meaning: 'No such model here (or stored response, for the Responses routes).', error: modelNotFound('gpt-unknown') },
  413: { meaning: 'The body is larger than the server takes.', error: bodyTooLarge(10_485_760) },
  429: {
    meaning: "Over the key's or the address's rate, or too many requests at once; `Retry-After` says when to retry.",
    error: rateLimited(12, {}),
  },
  500: { meaning: 'An error of the server itself (logged with the request id).', error: internalChatError() },
  502: {
    meaning: 'The model server failed, timed out or could not be reached, and no other provider could answer.',
    error: upstreamUnreachable('connect ECONNREFUSED 10.0.0.5:8000'),
  },
  503: {
    meaning: 'No provider of the model is in service now, or the database cannot be reached; retry after `Retry-After`.',
    error: noProviderAvailable('llama-3.1-8b', 5),
  },
};
