import { type ApiKeyPrincipal, findApiKey } from '@/lib/auth/credentials';
import { cachedPrincipal } from '@/lib/auth/principal-cache';
import { bearerToken, hashToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { getDb } from '@/lib/db/client';
import { bodyTooLarge, ChatError, chatErrorResponse, internalChatError, invalidApiKey, invalidRequest, rateLimited } from '@/lib/errors/chat';
import { log } from '@/lib/log';
import { consume, rateLimitHeaders } from '@/lib/rate-limit';
import { BodyTooLargeError, MalformedJsonError } from './body';
import { BadInputError } from './validation';

/*
 * The chat group's route wrapper: `Authorization: Bearer <API_KEY>` (else 401 invalid_api_key),
 * the key's request rate (its own `rpm`, else TRIAD_DEFAULT_RPM, a minute) with X-RateLimit-*
 * headers on every reply and Retry-After on 429, and the single place where any error becomes
 * `{error:{message,type,code}}` — never a stack trace.
 */
type Db = Awaited<ReturnType<typeof getDb>>;
export type ChatContext = { request: Request; db: Db; apiKey: ApiKeyPrincipal; headers: Record<string, string> };

export function withApiKey(handler: (ctx: ChatContext) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    let headers: Record<string, string> = {};
    try {
      const key = bearerToken(request.headers.get('authorization'));
      if (!key) throw invalidApiKey('Missing API key. Send it as `Authorization: Bearer <API_KEY>`.');
      const db = await getDb();
      const hash = hashToken(key);
      const apiKey = await cachedPrincipal(`key:${hash}`, config().TRIAD_AUTH_CACHE_TTL_MS, () => findApiKey(db, key));
      if (!apiKey) throw invalidApiKey();
      const decision = await consume('chat', hash, apiKey.rpm ?? config().TRIAD_DEFAULT_RPM, 60);
      headers = rateLimitHeaders(decision);
      if (!decision.allowed) throw rateLimited(decision.retryAfterS, headers);
      return await handler({ request, db, apiKey, headers });
    } catch (e) {
      return chatErrorResponse(toChatError(e, request), headers);
    }
  };
}

function toChatError(e: unknown, request: Request): ChatError {
  if (e instanceof ChatError) return e;
  if (e instanceof BadInputError) return invalidRequest(e.detail, e.param);
  if (e instanceof MalformedJsonError) return invalidRequest(`${e.message}.`);
  if (e instanceof BodyTooLargeError) return bodyTooLarge(e.limit);
  log.error('unhandled error', { path: new URL(request.url).pathname, error: (e as Error)?.message });
  return internalChatError();
}
