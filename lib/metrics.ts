import { monitorEventLoopDelay } from 'node:perf_hooks';
import { shared } from '@/lib/core/runtime';

/*
 * Process-wide metrics in Prometheus' text format, shared by the server (lib/server, which sees every
 * request) and the Next code (chat streams, rate limits): one registry in the runtime object.
 */
export type RouteTable = { exact: Map<string, string>; patterns: { regex: RegExp; label: string; dynamic: number }[] };
type Histogram = { buckets: number[]; sum: number; count: number };
type Metrics = {
  requests: Map<string, number>;
  durations: Map<string, Histogram>;
  openStreams: number;
  rateLimited: Map<string, number>;
  routes: RouteTable | null;
  /** Sections other modules render (providers), by name. */
  sections: Map<string, () => string[]>;
};
declare module '@/lib/core/runtime' {
  interface Runtime {
    metrics: Metrics;
  }
}
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/*
 * Route labels come from the app's route table (the `app/` routes, listed when the server is built,
 * given by the server through setRouteTable): a path is labelled with the route that serves it (a `[id]`
 * segment as `:id`), and every other path (unknown, 404, any length) is `other`, so
 * the metric set stays as small as the route table whatever the traffic.
 */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Routes of the app (`/api/v1/uptime/route`, `/(dashboard)/stats/page`, …): the exact paths, and patterns for those with [segments]. */
export function routeTable(appPaths: string[]): RouteTable {
  const exact = new Map<string, string>();
  const patterns: RouteTable['patterns'] = [];
  for (const key of appPaths) {
    const route = key.replace(/\/(page|route)$/, '').replace(/\/\([^/)]+\)/g, '') || '/';
    if (route.startsWith('/_')) continue; // /_not-found, /_global-error: what unknown paths get
    if (!route.includes('[')) {
      exact.set(route, route);
      continue;
    }
    const source = route
      .split('/')
      .map((seg) => (/^\[\.\.\.[^\]]+\]$/.test(seg) ? '.+' : /^\[[^\]]+\]$/.test(seg) ? '[^/]+' : seg.replace(/[.*+?^${}()|\\]/g, '\\$&')))
      .join('/');
    const label = route.replace(/\[(?:\.\.\.)?([^\]]+)\]/g, ':$1');
    patterns.push({ regex: new RegExp(`^${source}$`), label, dynamic: (route.match(/\[/g) ?? []).length });
  }
  patterns.sort((a, b) => a.dynamic - b.dynamic);
  return { exact, patterns };
}

export function setRouteTable(table: RouteTable): void {
  metrics().routes = table;
}

export function routeLabel(pathname: string): string {
  if (pathname.startsWith('/_next/')) return '/_next/*';
  const table = metrics().routes;
  if (!table) return 'other';
  const exact = table.exact.get(pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname);
  if (exact) return exact;
  for (const { regex, label } of table.patterns) if (regex.test(pathname)) return label;
  return 'other';
}

export function metrics(): Metrics {
  return shared('metrics', () => ({
    requests: new Map(),
    durations: new Map(),
    openStreams: 0,
    rateLimited: new Map(),
    routes: null,
    sections: new Map(),
  }));
}

export function observeRequest(method: string, pathname: string, status: number, seconds: number): void {
  const m = metrics();
  const route = routeLabel(pathname);
  const key = `${route}\u0000${METHODS.has(method) ? method : 'OTHER'}\u0000${status}`;
  m.requests.set(key, (m.requests.get(key) ?? 0) + 1);
  let h = m.durations.get(route);
  if (!h) m.durations.set(route, (h = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }));
  BUCKETS.forEach((b, i) => seconds <= b && h.buckets[i]!++);
  h.sum += seconds;
  h.count++;
}

export function streamOpened(): void {
  metrics().openStreams++;
}
export function streamClosed(): void {
  metrics().openStreams--;
}
export function rateLimitRejected(limiter: string): void {
  const m = metrics();
  m.rateLimited.set(limiter, (m.rateLimited.get(limiter) ?? 0) + 1);
}

/** Adds (or replaces) a section of metrics that another module keeps, rendered with the rest. */
export function addMetricsSection(name: string, render: () => string[]): void {
  metrics().sections.set(name, render);
}

export const esc = (v: unknown) => String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function renderMetrics(): string {
  const m = metrics();
  const out: string[] = [];
  out.push('# HELP triad_http_requests_total HTTP requests by route, method and status.', '# TYPE triad_http_requests_total counter');
  for (const [key, n] of m.requests) {
    const [route, method, status] = key.split('\u0000');
    out.push(`triad_http_requests_total{route="${esc(route)}",method="${method}",status="${status}"} ${n}`);
  }
  out.push(
    '# HELP triad_http_request_duration_seconds Time to the end of the response, by route.',
    '# TYPE triad_http_request_duration_seconds histogram',
  );
  for (const [route, h] of m.durations) {
    BUCKETS.forEach((b, i) => out.push(`triad_http_request_duration_seconds_bucket{route="${esc(route)}",le="${b}"} ${h.buckets[i]}`));
    out.push(`triad_http_request_duration_seconds_bucket{route="${esc(route)}",le="+Inf"} ${h.count}`);
    out.push(
      `triad_http_request_duration_seconds_sum{route="${esc(route)}"} ${h.sum}`,
      `triad_http_request_duration_seconds_count{route="${esc(route)}"} ${h.count}`,
    );
  }
  out.push(
    '# HELP triad_chat_open_streams Chat completion streams open now.',
    '# TYPE triad_chat_open_streams gauge',
    `triad_chat_open_streams ${m.openStreams}`,
  );
  out.push(
    '# HELP triad_rate_limit_rejections_total Requests refused by a rate limit.',
    '# TYPE triad_rate_limit_rejections_total counter',
  );
  for (const [limiter, n] of m.rateLimited) out.push(`triad_rate_limit_rejections_total{limiter="${esc(limiter)}"} ${n}`);
  for (const render of m.sections.values()) out.push(...render());
  return out.join('\n') + '\n';
}

/**
 * The process's own figures, for the soak test and for operators: resident memory, heap, event-loop
 * delay (p99 and max since the previous scrape, then reset) and open handles.
 */
export function watchProcess(): void {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  addMetricsSection('process', () => {
    const mem = process.memoryUsage();
    const p99 = delay.percentile(99) / 1e9;
    const max = delay.max / 1e9;
    delay.reset();
    return [
      '# HELP triad_process_resident_memory_bytes Resident memory of the server process.',
      '# TYPE triad_process_resident_memory_bytes gauge',
      `triad_process_resident_memory_bytes ${mem.rss}`,
      '# HELP triad_process_heap_used_bytes V8 heap in use.',
      '# TYPE triad_process_heap_used_bytes gauge',
      `triad_process_heap_used_bytes ${mem.heapUsed}`,
      '# HELP triad_process_heap_total_bytes V8 heap committed (in use, and pages V8 keeps for later).',
      '# TYPE triad_process_heap_total_bytes gauge',
      `triad_process_heap_total_bytes ${mem.heapTotal}`,
      "# HELP triad_process_external_bytes Memory outside the V8 heap that JavaScript objects hold (buffers, the embedded database's WebAssembly memory).",
      '# TYPE triad_process_external_bytes gauge',
      `triad_process_external_bytes ${mem.external}`,
      '# HELP triad_event_loop_delay_seconds Event-loop delay since the previous scrape.',
      '# TYPE triad_event_loop_delay_seconds gauge',
      `triad_event_loop_delay_seconds{quantile="0.99"} ${Number.isFinite(p99) ? p99 : 0}`,
      `triad_event_loop_delay_seconds{quantile="1"} ${Number.isFinite(max) ? max : 0}`,
      '# HELP triad_process_open_handles Handles and requests keeping the event loop alive (sockets, timers, files).',
      '# TYPE triad_process_open_handles gauge',
      `triad_process_open_handles ${process.getActiveResourcesInfo().length}`,
    ];
  });
}
