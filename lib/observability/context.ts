import { AsyncLocalStorage } from 'node:async_hooks';
import type { Span } from '@opentelemetry/api';
import { shared } from '@/lib/core/runtime';

/*
 * One request context (design §18): what the server knows of the request it is serving — its id, its
 * path, its trace (the span that is current: the request's SERVER span, then the completion's, then a
 * provider attempt's) and, once authenticated, who is calling — carried through every await of the
 * request by AsyncLocalStorage. The logger reads it (every line written while serving a request carries
 * its id), the model clients send its span as `traceparent`, the request log records it. One storage
 * for every copy of the code in the process (lib/core/runtime.ts): the server's bundle opens the
 * context, Next's route bundles read it.
 */
export type RequestContext = {
  requestId: string;
  /** The request's path (no query). */
  path: string;
  /** The current span, when tracing is on (lib/observability/tracing.ts). */
  span?: Span;
  /** Who is calling, once authenticated: the organization and, for an API key, the key. */
  principal?: { orgId: string | null; apiKeyId?: string };
};

declare module '@/lib/core/runtime' {
  interface Runtime {
    requestContext: AsyncLocalStorage<RequestContext>;
  }
}

const storage = () => shared('requestContext', () => new AsyncLocalStorage<RequestContext>());

/** Runs `fn` (and everything it awaits) in the context of one request. */
export const inRequest = <T>(context: RequestContext, fn: () => T): T => storage().run(context, fn);

/** The context of the request being served, if any. */
export const currentRequest = (): RequestContext | undefined => storage().getStore();

/** Runs `fn` with `span` as the current span of this request (its children's parent, the `traceparent` sent on). */
export function inSpan<T>(span: Span, fn: () => T): T {
  const current = storage().getStore();
  return storage().run({ ...(current ?? { requestId: '', path: '' }), span }, fn);
}

/** Notes who is calling, for the request log and the logs. */
export function notePrincipal(principal: RequestContext['principal']): void {
  const current = storage().getStore();
  if (current) current.principal = principal;
}
