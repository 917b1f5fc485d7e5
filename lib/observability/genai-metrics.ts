import { addMetricsSection, esc } from '@/lib/metrics';
import { shared } from '@/lib/core/runtime';

/*
 * The GenAI metrics of OpenTelemetry's semantic conventions (design §18), on /api/metrics beside the
 * others, as Prometheus histograms with the conventions' advised buckets: tokens used (by type), the
 * request's duration, the time to the first token of a stream and the time per output token after it —
 * by operation, model and provider. Models and providers are the instance's own (a request for a
 * model no provider serves is not counted), and past MAX_SERIES label sets new ones share `other`, so
 * the set stays bounded whatever clients send.
 */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5];
const MAX_SERIES = 1000;

type Histogram = { bounds: number[]; buckets: number[]; sum: number; count: number };
type Family = { name: string; help: string; bounds: number[]; series: Map<string, Histogram> };
type GenAiMetrics = { tokens: Family; duration: Family; ttft: Family; tpot: Family };
declare module '@/lib/core/runtime' {
  interface Runtime {
    genAiMetrics: GenAiMetrics;
  }
}

const family = (name: string, help: string, bounds: number[]): Family => ({ name, help, bounds, series: new Map() });
const all = () =>
  shared('genAiMetrics', () => {
    const m: GenAiMetrics = {
      tokens: family('gen_ai_client_token_usage', 'Tokens used by completions and embeddings, by type (input, output).', TOKEN_BUCKETS),
      duration: family('gen_ai_server_request_duration', 'Seconds from a request to the end of its reply.', DURATION_BUCKETS),
      ttft: family('gen_ai_server_time_to_first_token', "Seconds from a streamed request to its reply's first token.", TTFT_BUCKETS),
      tpot: family('gen_ai_server_time_per_output_token', 'Seconds per output token after the first, of streamed replies.', TPOT_BUCKETS),
    };
    addMetricsSection('gen_ai', () => Object.values(m).flatMap(render));
    return m;
  });

function observe(f: Family, labels: string, value: number) {
  let h = f.series.get(labels);
  if (!h) {
    if (f.series.size >= MAX_SERIES) return observe(f, 'other="true"', value);
    f.series.set(labels, (h = { bounds: f.bounds, buckets: f.bounds.map(() => 0), sum: 0, count: 0 }));
  }
  for (let i = 0; i < h.bounds.length; i++) if (value <= h.bounds[i]!) h.buckets[i]!++;
  h.sum += value;
  h.count++;
}

function render(f: Family): string[] {
  if (!f.series.size) return [];
  const out = [`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} histogram`];
  for (const [labels, h] of f.series) {
    h.bounds.forEach((b, i) => out.push(`${f.name}_bucket{${labels},le="${b}"} ${h.buckets[i]}`));
    out.push(
      `${f.name}_bucket{${labels},le="+Inf"} ${h.count}`,
      `${f.name}_sum{${labels}} ${h.sum}`,
      `${f.name}_count{${labels}} ${h.count}`,
    );
  }
  return out;
}

export type GenAiObservation = {
  operation: 'chat' | 'embeddings';
  model: string;
  provider: string;
  inputTokens: number;
  outputTokens: number;
  seconds: number;
  /** Streams: seconds to the first token, and the seconds after it. */
  ttftSeconds?: number | null;
  /** An error's type, for a request that failed. */
  error?: string | null;
};

/** Label texts by operation, model and provider, written once (a completion would otherwise escape and join them anew). */
const labelTexts = new Map<string, string>();
const labelsOf = (o: GenAiObservation) => {
  const key = `${o.operation}\0${o.model}\0${o.provider}`;
  let text = labelTexts.get(key);
  if (text === undefined) {
    text = `gen_ai_operation_name="${o.operation}",gen_ai_request_model="${esc(o.model)}",gen_ai_provider_name="${esc(o.provider)}"`;
    if (labelTexts.size < MAX_SERIES) labelTexts.set(key, text);
  }
  return text;
};

export function observeGenAi(o: GenAiObservation): void {
  const m = all();
  const base = labelsOf(o);
  if (!o.error) {
    observe(m.tokens, `${base},gen_ai_token_type="input"`, o.inputTokens);
    if (o.operation === 'chat') observe(m.tokens, `${base},gen_ai_token_type="output"`, o.outputTokens);
  }
  observe(m.duration, o.error ? `${base},error_type="${esc(o.error)}"` : base, o.seconds);
  if (o.ttftSeconds != null && !o.error) {
    observe(m.ttft, base, o.ttftSeconds);
    if (o.outputTokens > 1) observe(m.tpot, base, (o.seconds - o.ttftSeconds) / (o.outputTokens - 1));
  }
}
