import autocannon from 'autocannon';
import http from 'node:http';

/** The `p`th percentile of `xs` (nearest rank; NaN when there are none). */
export function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/**
 * One client's request over `agent` (kept alive, one socket: requests back to back), a POST of a JSON
 * `body` unless `method` says GET, its reply read whole: when its first byte came and when its last did,
 * in ms, and its status.
 */
export function timedRequest(
  agent: http.Agent,
  url: string,
  body: string,
  headers: Record<string, string>,
  method: 'GET' | 'POST' = 'POST',
): Promise<{ ttfb: number; total: number; status: number }> {
  return new Promise((resolve, reject) => {
    const head =
      method === 'GET' ? headers : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers };
    const started = performance.now();
    const req = http.request(url, { method, agent, headers: head }, (res) => {
      let ttfb = 0;
      res.on('data', () => (ttfb ||= performance.now() - started));
      res.on('end', () => resolve({ ttfb, total: performance.now() - started, status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : body);
  });
}

/** A timed POST (timedRequest): how long it took, in ms; an error unless it answered 200. */
export async function timedPost(agent: http.Agent, url: string, body: string, headers: Record<string, string>): Promise<number> {
  const r = await timedRequest(agent, url, body, headers);
  if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
  return r.total;
}

export type LoadResult = { name: string; rps: number; p50: number; p99: number; non2xx: number; errors: number; requests: number };

/** Sends load to one URL of this machine for `seconds` with `connections` clients; numbers as autocannon measured them. */
export async function load(
  name: string,
  opts: {
    url: string;
    connections?: number;
    seconds?: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: string;
    amount?: number;
  },
): Promise<LoadResult> {
  if (!/^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(opts.url)) throw new Error('load tests target 127.0.0.1 only');
  const result = await autocannon({
    url: opts.url,
    connections: opts.connections ?? 10,
    duration: opts.seconds ?? 5,
    amount: opts.amount,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
  });
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

export function printTable(rows: LoadResult[], baseline?: LoadResult) {
  const head = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', ...(baseline ? ['vs trivial'] : [])];
  const body = rows.map((r) => [
    r.name,
    String(r.rps),
    String(r.p50),
    String(r.p99),
    String(r.non2xx),
    String(r.errors),
    ...(baseline ? [`${Math.round((100 * r.rps) / baseline.rps)} %`] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const b of body) console.log(line(b));
}
