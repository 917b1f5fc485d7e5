/*
 * The one error a client is told about. Domain code and the route kernel throw an ApiError; the
 * route's wire format (lib/errors/link.ts: statistics, aliases and Triad's own routes; lib/errors/chat.ts:
 * the chat group) writes it in its shape. `message` is what that shape's `message` holds (the link
 * format's fixed text, the chat format's sentence); the other fields are read by the format that has them.
 */
export type ApiErrorFields = {
  /** The link format's `detail`: for a person, what was wrong. */
  detail?: string;
  /** The chat format's `type` and `code`. */
  type?: string;
  code?: string;
  /** The chat format's `param`: the offending field. */
  param?: string;
  /** Headers of the error reply (Retry-After, X-RateLimit-*). */
  headers?: Record<string, string>;
};

export class ApiError extends Error {
  override name = 'ApiError';
  readonly detail?: string;
  readonly type?: string;
  readonly code?: string;
  readonly param?: string;
  readonly headers?: Record<string, string>;
  constructor(
    readonly status: number,
    message: string,
    fields: ApiErrorFields = {},
  ) {
    super(message);
    Object.assign(this, fields);
  }
}

/**
 * A wire format: how an ApiError is written, and the errors the route kernel raises for any route
 * (each format words them its own way).
 */
/** The API reference's account of a format's errors: what each status means, and one as the server makes it. */
export type ErrorExamples = Record<number, { meaning: string; error: ApiError }>;

export type WireFormat = {
  body(e: ApiError): unknown;
  /** Input that fails its schema (the alias group answers its own: see the route's `badInput`). */
  badInput(detail: string, param?: string): ApiError;
  /** No credential, or one this server does not know. */
  unauthorized(detail: string): ApiError;
  /** A credential that may not do this (a console call without its CSRF token, an organization's session on an instance call). */
  forbidden(detail: string): ApiError;
  /** Over a rate: `why` says whose (this API key, this address). */
  tooManyRequests(retryAfterS: number, headers: Record<string, string>, why?: string): ApiError;
  bodyTooLarge(limit: number): ApiError;
  /** The database cannot be reached: 503 with Retry-After, at once rather than after a hang. */
  unavailable(): ApiError;
  internal(): ApiError;
  /** A header that may carry the API key instead of `Authorization: Bearer` (Anthropic's `x-api-key`). */
  apiKeyHeader?: string;
};
