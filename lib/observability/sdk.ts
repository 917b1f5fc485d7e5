import type { TextMapPropagator, Tracer } from '@opentelemetry/api';

/*
 * The OpenTelemetry SDK as both Triad's server (./tracing.ts) and the node agent (lib/node-agent/)
 * start it from the standard variables: OTLP over HTTP to OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, as
 * http/protobuf (the default) or http/json, batched (OTEL_BSP_*), sampled (OTEL_TRACES_SAMPLER), the
 * resource from OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES over the caller's defaults. The SDK's
 * packages are imported only here, only when an endpoint is set. Nothing of Triad's is imported: the
 * agent is bundled on its own.
 */
export type OtlpSettings = { endpoint: string; protocol: 'http/protobuf' | 'http/json'; asked: string };

/** Where and how spans are exported, from the standard variables; null when they are not. */
export function otlpSettings(env: NodeJS.ProcessEnv): OtlpSettings | null {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return null;
  const asked = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  return { endpoint, protocol: asked === 'http/json' ? 'http/json' : 'http/protobuf', asked };
}

/** A tracer exporting as `settings` say, under a resource of `defaults` (the variables win); and how to flush and stop it. */
export async function startExporting(
  settings: OtlpSettings,
  name: string,
  version: string,
  defaults: Record<string, string>,
): Promise<{ tracer: Tracer; propagator: TextMapPropagator; shutdown: () => Promise<void> }> {
  const [
    { BasicTracerProvider, BatchSpanProcessor },
    { resourceFromAttributes, detectResources, envDetector },
    { W3CTraceContextPropagator },
  ] = await Promise.all([import('@opentelemetry/sdk-trace-base'), import('@opentelemetry/resources'), import('@opentelemetry/core')]);
  const { OTLPTraceExporter } =
    settings.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  const resource = resourceFromAttributes({ 'service.name': name, 'service.version': version, ...defaults }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  return { tracer: provider.getTracer(name, version), propagator: new W3CTraceContextPropagator(), shutdown: () => provider.shutdown() };
}
