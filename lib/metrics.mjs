// Process-wide metrics in Prometheus' text format, shared by the server (scripts/start.mjs, which
// sees every request) and the Next code (chat streams, rate limits). Plain JS so that both can load
// it; kept on globalThis because each loads its own copy.
const KEY = Symbol.for('triad.metrics');
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Route labels: ids and other free path segments folded, so that label sets stay small. */
const ROUTES = [
  [/^\/organization\/api\/v1\/alias\/(update|delete)\/[^/]+$/, (m) => `/organization/api/v1/alias/${m[1]}/:id`],
  [/^\/organization\/api\/v1\/alias\/(?!create$)[^/]+$/, () => '/organization/api/v1/alias/:id'],
  [/^\/stats\/[^/]+$/, () => '/stats/:partnerNodeId'],
  [/^\/_next\//, () => '/_next/*'],
  [/^\/(api|organization)\//, (m, path) => path],
  [/^\/(|playground|stats|aliases|docs|favicon\.svg)$/, (m, path) => path],
];

export function routeLabel(pathname) {
  for (const [re, label] of ROUTES) {
    const m = re.exec(pathname);
    if (m) return label(m, pathname);
  }
  return 'other';
}

export function metrics() {
  globalThis[KEY] ??= { requests: new Map(), durations: new Map(), openStreams: 0, rateLimited: new Map() };
  return globalThis[KEY];
}

export function observeRequest(method, pathname, status, seconds) {
  const m = metrics();
  const route = routeLabel(pathname);
  const key = `${route}\u0000${method}\u0000${status}`;
  m.requests.set(key, (m.requests.get(key) ?? 0) + 1);
  let h = m.durations.get(route);
  if (!h) m.durations.set(route, (h = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }));
  BUCKETS.forEach((b, i) => seconds <= b && h.buckets[i]++);
  h.sum += seconds;
  h.count++;
}

export function streamOpened() {
  metrics().openStreams++;
}
export function streamClosed() {
  metrics().openStreams--;
}
export function rateLimitRejected(limiter) {
  const m = metrics();
  m.rateLimited.set(limiter, (m.rateLimited.get(limiter) ?? 0) + 1);
}

const esc = (v) => String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function renderMetrics() {
  const m = metrics();
  const out = [];
  out.push('# HELP triad_http_requests_total HTTP requests by route, method and status.', '# TYPE triad_http_requests_total counter');
  for (const [key, n] of m.requests) {
    const [route, method, status] = key.split('\u0000');
    out.push(`triad_http_requests_total{route="${esc(route)}",method="${method}",status="${status}"} ${n}`);
  }
  out.push('# HELP triad_http_request_duration_seconds Time to the end of the response, by route.', '# TYPE triad_http_request_duration_seconds histogram');
  for (const [route, h] of m.durations) {
    BUCKETS.forEach((b, i) => out.push(`triad_http_request_duration_seconds_bucket{route="${esc(route)}",le="${b}"} ${h.buckets[i]}`));
    out.push(`triad_http_request_duration_seconds_bucket{route="${esc(route)}",le="+Inf"} ${h.count}`);
    out.push(`triad_http_request_duration_seconds_sum{route="${esc(route)}"} ${h.sum}`, `triad_http_request_duration_seconds_count{route="${esc(route)}"} ${h.count}`);
  }
  out.push('# HELP triad_chat_open_streams Chat completion streams open now.', '# TYPE triad_chat_open_streams gauge', `triad_chat_open_streams ${m.openStreams}`);
  out.push('# HELP triad_rate_limit_rejections_total Requests refused by a rate limit.', '# TYPE triad_rate_limit_rejections_total counter');
  for (const [limiter, n] of m.rateLimited) out.push(`triad_rate_limit_rejections_total{limiter="${esc(limiter)}"} ${n}`);
  return out.join('\n') + '\n';
}
