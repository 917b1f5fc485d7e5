import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { otlpSettings, startExporting } from '@/lib/observability/sdk';

/*
 * The agent's own spans (design §18): when the partner sets OTEL_EXPORTER_OTLP_ENDPOINT (OTLP over
 * HTTP; OTEL_EXPORTER_OTLP_PROTOCOL http/json, else http/protobuf; OTEL_SERVICE_NAME, default
 * `triad-node`), each request Triad sends gets a CLIENT span, child of the trace context Triad sent
 * with it (tunnel protocol 3), and the model server gets that span as its `traceparent`; so the
 * agent's hop joins the client's trace. Without the variable nothing is loaded, and the trace context
 * Triad sent goes to the model server as it came.
 */
export type RequestSpan = { headers: Record<string, string>; end(status: number | null, error?: string): void };
export type AgentTracing = {
  request(path: string, upstream: string, headers: Record<string, string>): RequestSpan;
  shutdown(): Promise<void>;
};

export async function agentTracing(env: NodeJS.ProcessEnv, node: string, version: string): Promise<AgentTracing | null> {
  const settings = otlpSettings(env);
  if (!settings) return null;
  const { tracer, propagator, shutdown } = await startExporting(settings, 'triad-node', version, { 'triad.node.id': node });
  return {
    request(path, upstream, headers) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      let address = upstream;
      try {
        address = new URL(upstream).host;
      } catch {
        // as given
      }
      const span: Span = tracer.startSpan(
        `POST ${path}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'http.request.method': 'POST', 'server.address': address, 'url.path': path, 'triad.node.id': node },
        },
        parent,
      );
      const own: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), own, defaultTextMapSetter);
      return {
        headers: { ...headers, ...own },
        end(status, error) {
          if (status !== null) span.setAttribute('http.response.status_code', status);
          if (error || (status !== null && status >= 500)) {
            span.setAttribute('error.type', error ?? String(status));
            span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          }
          span.end();
        },
      };
    },
    shutdown,
  };
}
