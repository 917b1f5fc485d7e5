import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapPropagator,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import { shared } from '@/lib/core/runtime';
import { log } from '@/lib/log';
import { onShutdown } from '@/lib/shutdown';
import { currentRequest } from './context';
import { otlpSettings, startExporting } from './sdk';

/*
 * Traces (design §18), with the OpenTelemetry SDK and its standard variables: an exporter only when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT) is set — OTLP over HTTP, `http/protobuf` (the
 * default) or `http/json` (OTEL_EXPORTER_OTLP_PROTOCOL); the sampler (OTEL_TRACES_SAMPLER), the batch
 * processor (OTEL_BSP_*) and the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) as the SDK reads
 * them. Without an endpoint the SDK is not even loaded: `tracer()` is null and every caller skips its
 * span, so the hot path does nothing more than test that.
 *
 * The tracer is Triad's own, not registered globally: Next's built-in spans stay off, and the spans
 * here are parented explicitly through the request context (./context.ts), not through OpenTelemetry's
 * context manager.
 */
type Tracing = { tracer: Tracer | null; propagator: TextMapPropagator | null; content: boolean };
declare module '@/lib/core/runtime' {
  interface Runtime {
    tracing: Tracing;
  }
}
const state = () => shared('tracing', (): Tracing => ({ tracer: null, propagator: null, content: false }));

/** Triad's tracer, when traces are exported; null otherwise (nothing to do). */
export const tracer = (): Tracer | null => state().tracer;

/** Whether spans may carry prompt and completion text (TRIAD_TRACE_CONTENT=1). */
export const traceContent = (): boolean => state().content;

/**
 * Starts exporting traces if the variables say where (once a process; the server calls it before it
 * listens). The SDK's packages are loaded then only (./sdk.ts).
 */
export async function startTracing(options: { content: boolean; version: string }): Promise<void> {
  const settings = otlpSettings(process.env);
  const s = state();
  if (!settings || s.tracer) return;
  if (settings.asked !== settings.protocol)
    log.warn('OTLP protocol not supported: traces go as http/protobuf', {
      protocol: settings.asked,
      supported: ['http/protobuf', 'http/json'],
    });
  const sdk = await startExporting(settings, 'triad', options.version, {});
  Object.assign(s, { tracer: sdk.tracer, propagator: sdk.propagator, content: options.content });
  onShutdown('tracing', async () => {
    s.tracer = null;
    await sdk.shutdown();
  });
  log.info('exporting traces', {
    endpoint: settings.endpoint.replace(/\/\/[^@/]*@/, '//'),
    protocol: settings.protocol,
    content: options.content,
  });
}

/** The parent an incoming request names in its `traceparent` (and `tracestate`), else none. */
export function incomingContext(headers: Record<string, string | string[] | undefined>): Context {
  return state().propagator?.extract(ROOT_CONTEXT, headers, defaultTextMapGetter) ?? ROOT_CONTEXT;
}

/** A span of the request being served, child of its current span (or of `parent`). */
export function startSpan(t: Tracer, name: string, kind: SpanKind, attributes: Attributes, parent?: Context): Span {
  const current = currentRequest()?.span;
  return t.startSpan(name, { kind, attributes }, parent ?? (current ? trace.setSpan(ROOT_CONTEXT, current) : ROOT_CONTEXT));
}

/** `traceparent` (and `tracestate`) of the request's current span, for the model server it calls; undefined without one. */
export function traceHeaders(): Record<string, string> | undefined {
  const propagator = state().propagator;
  const span = propagator && currentRequest()?.span;
  if (!span) return undefined;
  const headers: Record<string, string> = {};
  propagator!.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
  return headers;
}

/** Ends a span as failed: its status, `error.type` (an error code, an exception's name). */
export function failSpan(span: Span, type: string, message?: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

export { SpanKind };

/**
 * The SERVER span of a request (design §18), continuing the client's `traceparent`: named by method
 * and route (`POST /api/v1/chat/completions`), ended with the status by `endServerSpan`.
 */
export function startServerSpan(t: Tracer, req: IncomingMessage, route: string, requestId: string): Span {
  const attributes: Attributes = {
    'http.request.method': req.method ?? 'GET',
    'url.path': (req.url ?? '/').split('?')[0],
    'url.scheme': 'http',
    'http.route': route,
    'network.peer.address': req.socket.remoteAddress,
    'user_agent.original': req.headers['user-agent'],
    'triad.request_id': requestId,
  };
  return t.startSpan(`${req.method} ${route}`, { kind: SpanKind.SERVER, attributes }, incomingContext(req.headers));
}

export function endServerSpan(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  if (status === 499) span.setAttribute('error.type', 'client_closed');
  span.end();
}
