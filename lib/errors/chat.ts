import { z } from 'zod';
import type { Reply } from '@/lib/core/reply';

/**
 * The chat group's wire format (interface part 7, OpenAI's convention):
 * `{ "error": { "message": string, "type": string, "code": string, "param"?: string } }`.
 */
export class ChatError extends Error {
  override name = 'ChatError';
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string, param?: string) =>
  new ChatError(400, message, 'invalid_request_error', 'invalid_request', param);
export const invalidApiKey = (message = 'Invalid API key. Send it as `Authorization: Bearer <API_KEY>`.') =>
  new ChatError(401, message, 'invalid_request_error', 'invalid_api_key');
export const modelNotFound = (model: string) =>
  new ChatError(
    404,
    `The model \`${model}\` does not exist. GET /api/v1/models lists the models served here.`,
    'invalid_request_error',
    'model_not_found',
    'model',
  );
export const bodyTooLarge = (limit: number) =>
  new ChatError(413, `The request body exceeds ${limit} bytes.`, 'invalid_request_error', 'request_too_large');
export const rateLimited = (retryAfterS: number, headers: Record<string, string>) =>
  new ChatError(
    429,
    `Rate limit reached for this API key. Retry in ${retryAfterS} s.`,
    'rate_limit_error',
    'rate_limit_exceeded',
    undefined,
    headers,
  );
/** Too many requests with API keys this server does not know, from one client address. */
export const unknownKeysLimited = (retryAfterS: number, headers: Record<string, string>) =>
  new ChatError(
    429,
    `Too many requests with unknown API keys from this address. Retry in ${retryAfterS} s.`,
    'rate_limit_error',
    'rate_limit_exceeded',
    undefined,
    headers,
  );
export const upstreamUnreachable = (detail: string) =>
  new ChatError(502, `The model server could not be reached: ${detail}`, 'api_error', 'upstream_unreachable');
export const upstreamFailed = (status: number, detail: string) =>
  new ChatError(502, `The model server answered ${status}: ${detail}`, 'api_error', 'upstream_error');
export const internalChatError = () =>
  new ChatError(500, 'The server had an error while processing the request.', 'api_error', 'internal_error');

/** The body of every error of the chat group. */
export const chatErrorSchema = z.object({
  error: z.object({ message: z.string(), type: z.string(), code: z.string(), param: z.string().optional() }),
});

export function chatErrorBody(e: ChatError): z.infer<typeof chatErrorSchema> {
  return { error: { message: e.message, type: e.type, code: e.code, ...(e.param ? { param: e.param } : {}) } };
}

export function chatErrorReply(e: ChatError, extraHeaders: Record<string, string> = {}): Reply {
  return { status: e.status, headers: { ...extraHeaders, ...e.headers }, json: chatErrorBody(e) };
}
