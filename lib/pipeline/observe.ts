import type { Span } from '@opentelemetry/api';
import type { ChatRequest } from '@/lib/chat/schema';
import { ApiError } from '@/lib/core/errors';
import type { Db } from '@/lib/db/client';
import { costNumber } from '@/lib/providers/prices';
import { currentRequest, type RequestContext } from '@/lib/observability/context';
import { observeGenAi } from '@/lib/observability/genai-metrics';
import { recordRequest } from '@/lib/observability/request-log';
import { failSpan, SpanKind, startSpan, traceContent, tracer } from '@/lib/observability/tracing';

/*
 * What a completion or an embedding tells the operator (design §18), at its two ends: opened, its
 * GenAI span (`chat gpt-4o`, child of the request's SERVER span, parent of the provider attempts'
 * CLIENT spans) when traces are exported; ended, the span's outcome attributes (the conventions'
 * `gen_ai.*`), the GenAI metrics and the request log's record. Prompt and reply text go into the span
 * only with TRIAD_TRACE_CONTENT=1, and never into the log.
 */
export type Observed = {
  db: Db;
  operation: 'chat' | 'embeddings';
  model: string;
  stream: boolean;
  apiKeyId: string;
  orgId: string;
  /** performance.now() when it began. */
  startedAt: number;
  /** Date.now() when it began. */
  at: number;
  request: RequestContext | undefined;
  span: Span | undefined;
};

/** Opens the observation of a call; its span, when traced, becomes the request's current span for what runs in `inSpan`. */
export function observe(
  call: { db: Db; apiKeyId: string; tenant: { orgId: string }; startedAt?: number },
  operation: Observed['operation'],
  request: Partial<ChatRequest> & { model: string },
): Observed {
  const t = tracer();
  return {
    db: call.db,
    operation,
    model: request.model,
    stream: !!request.stream,
    apiKeyId: call.apiKeyId,
    orgId: call.tenant.orgId,
    startedAt: call.startedAt ?? performance.now(),
    at: Date.now(),
    request: currentRequest(),
    span: t ? startSpan(t, `${operation} ${request.model}`, SpanKind.INTERNAL, requestAttributes(operation, request)) : undefined,
  };
}

/** The conventions' request attributes (and the prompt, with TRIAD_TRACE_CONTENT=1). */
function requestAttributes(operation: string, r: Partial<ChatRequest>) {
  const stop = typeof r.stop === 'string' ? [r.stop] : r.stop;
  return {
    'gen_ai.operation.name': operation,
    'gen_ai.request.model': r.model,
    'gen_ai.request.max_tokens': r.max_completion_tokens ?? r.max_tokens ?? undefined,
    'gen_ai.request.temperature': r.temperature ?? undefined,
    'gen_ai.request.top_p': r.top_p ?? undefined,
    'gen_ai.request.frequency_penalty': r.frequency_penalty ?? undefined,
    'gen_ai.request.presence_penalty': r.presence_penalty ?? undefined,
    'gen_ai.request.seed': r.seed ?? undefined,
    'gen_ai.request.stop_sequences': stop ?? undefined,
    'gen_ai.request.choice.count': r.n ?? undefined,
    'gen_ai.request.stream': r.stream ?? undefined,
    'gen_ai.input.messages': traceContent() && r.messages ? JSON.stringify(r.messages) : undefined,
  };
}

export type Ending = {
  /** The provider that served it (or was tried last); null when none was. */
  provider: string | null;
  /** The status the client got. */
  status: number;
  promptTokens: number;
  completionTokens: number;
  cost: string;
  /** performance.now() of a stream's first content. */
  firstContentAt?: number | null;
  /** Its error code, or how a begun reply ended badly (`aborted`, `error`). */
  error: string | null;
  finish?: string | null;
  responseId?: string | null;
  responseModel?: string | null;
  /** The reply's text (put into the span only with TRIAD_TRACE_CONTENT=1). */
  text?: () => string;
};

/** Ends the observation: the span, the metrics (for a model that exists), the request log. */
export function observed(o: Observed, e: Ending): void {
  const now = performance.now();
  const seconds = (now - o.startedAt) / 1000;
  const ttft = o.stream && e.firstContentAt != null ? (e.firstContentAt - o.startedAt) / 1000 : null;
  if (o.span?.isRecording()) {
    o.span.setAttributes({
      'gen_ai.provider.name': e.provider ?? undefined,
      'gen_ai.response.model': e.responseModel ?? undefined,
      'gen_ai.response.id': e.responseId ?? undefined,
      'gen_ai.response.finish_reasons': e.finish ? [e.finish] : undefined,
      'gen_ai.usage.input_tokens': e.promptTokens,
      'gen_ai.usage.output_tokens': o.operation === 'chat' ? e.completionTokens : undefined,
      'gen_ai.response.time_to_first_chunk': ttft ?? undefined,
      'triad.cost_usd': costNumber(e.cost),
      'triad.request_id': o.request?.requestId,
      'gen_ai.output.messages':
        traceContent() && e.text
          ? JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: e.text() }], finish_reason: e.finish }])
          : undefined,
    });
  }
  if (o.span) {
    if (e.error) failSpan(o.span, e.error);
    else o.span.end();
  }
  if (e.provider && e.error !== 'model_not_found')
    observeGenAi({
      operation: o.operation,
      model: o.model,
      provider: e.provider,
      inputTokens: e.promptTokens,
      outputTokens: e.completionTokens,
      seconds,
      ttftSeconds: ttft,
      error: e.error,
    });
  recordRequest(o.db, {
    requestId: o.request?.requestId ?? '',
    orgId: o.orgId,
    apiKeyId: o.apiKeyId,
    endpoint: o.request?.path ?? '',
    model: o.model,
    provider: e.provider,
    status: e.status,
    stream: o.stream,
    latencyMs: now - o.startedAt,
    ttftMs: ttft === null ? null : ttft * 1000,
    promptTokens: e.promptTokens,
    completionTokens: e.completionTokens,
    cost: e.cost,
    error: e.error,
    traceId: o.span?.spanContext().traceId ?? null,
    at: o.at,
  });
}

/** Ends the observation of a call that failed before a reply (an error reply, its status and code; anything else a 500). */
export function observedFailure(o: Observed, e: unknown): void {
  const error = e instanceof ApiError ? e : null;
  observed(o, {
    provider: null,
    status: error?.status ?? 500,
    promptTokens: 0,
    completionTokens: 0,
    cost: '0',
    error: error?.code ?? 'internal_error',
  });
}
