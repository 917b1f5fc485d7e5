import { createApiKey } from '@/lib/auth/credentials';
import { latencyBucket } from '@/lib/chat/latency';
import { addDecimals } from '@/lib/core/decimal';
import type { Db } from '@/lib/db/client';
import { chatLatencyHourly, chatUsage } from '@/lib/db/schema';
import { insertRequests, type RequestRecord } from '@/lib/observability/request-log';
import { costOf, perMillion, splitCost } from '@/lib/providers/prices';
import { config } from '@/lib/config';
import { rng, yieldToServer } from '@/lib/stats/simulate';
import { DEMO_MODEL, DEMO_SERVERS } from './demo-servers';

/*
 * The demo organization's usage history (design §24): two weeks of chat completions on three API keys
 * of its own, named "Demo history · …" so that nobody takes them for real traffic, as the fleet's
 * nodes are named demo-node-…. Hour by hour: requests, tokens, errors and latency per key and model,
 * with a day's rhythm, quieter weekends and one bad afternoon, so the Usage page shows what it is for;
 * and each of those completions in the request log, so the Requests page shows them one by one (who
 * served it, its status, latency, tokens and cost; the failures with their error). What it spent is what the demo's nodes charge (each completion of the demo model served by one of
 * them, chosen by their weights, at its price); the built-in guide is free.
 * The keys' secrets are thrown away at once: they only carry history. Seeded: always the same history.
 */
export const DEMO_USAGE = { days: 14, seed: 7 };

/** A completion of the history a demo node (its partner node id) served: in its hour, its tokens and what the node earned. */
export type DemoServed = { node: string; hourStart: number; requests: 1; tokens: number; usd: string };

type Client = {
  label: string;
  /** Completions an hour at the busiest, and how busy each hour of the day (UTC) is, 0–1. */
  peak: number;
  shape: (hour: number) => number;
  weekend: number;
  streamed: number;
  models: [model: string, share: number][];
  prompt: number;
  completion: number;
  errors: number;
};

const CLIENTS: Client[] = [
  {
    label: 'Demo history · web app',
    peak: 48,
    shape: (h) => 0.15 + 0.85 * Math.max(0, Math.sin(((h - 7) / 14) * Math.PI)),
    weekend: 0.45,
    streamed: 0.85,
    models: [
      ['triad-demo', 0.75],
      ['triad-guide', 0.25],
    ],
    prompt: 380,
    completion: 210,
    errors: 0.012,
  },
  {
    label: 'Demo history · nightly batch',
    peak: 110,
    shape: (h) => (h >= 1 && h <= 4 ? 1 : 0),
    weekend: 1,
    streamed: 0,
    models: [['triad-demo', 1]],
    prompt: 1400,
    completion: 420,
    errors: 0.025,
  },
  {
    label: 'Demo history · support bot',
    peak: 16,
    shape: (h) => 0.5 + 0.5 * Math.max(0, Math.sin(((h - 5) / 16) * Math.PI)),
    weekend: 0.8,
    streamed: 1,
    models: [
      ['triad-guide', 0.6],
      ['triad-demo', 0.4],
    ],
    prompt: 520,
    completion: 160,
    errors: 0.008,
  },
];

/** Median milliseconds of a model's completions: to the last byte, and to the first content of a stream. */
const LATENCY: Record<string, { total: number; ttft: number }> = {
  'triad-demo': { total: 1100, ttft: 240 },
  'triad-guide': { total: 70, ttft: 25 },
};

const HOUR = 3_600_000;

/** The demo model's servers as routing picks them (by weight), each with its prices (USD per million tokens). */
const SERVERS = DEMO_SERVERS.map((s) => ({ weight: s.weight, prices: { prompt: perMillion(s.price), completion: perMillion(s.price) } }));
const WEIGHTS = SERVERS.reduce((n, s) => n + s.weight, 0);

/** Adds the history to the organization `orgId`, ending with the hour before `now`. */
export async function simulateUsage(db: Db, { orgId, now = Date.now() }: { orgId: string; now?: number }) {
  const random = rng(DEMO_USAGE.seed);
  /** A log-normal draw around `median` (σ 0.45). */
  const around = (median: number) => {
    const u = Math.max(1e-9, random());
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    return median * Math.exp(0.45 * normal);
  };
  const lastHour = now - (now % HOUR) - HOUR;
  const firstHour = lastHour - (DEMO_USAGE.days * 24 - 1) * HOUR;
  // One bad afternoon five days ago: the demo model's errors and latency climb for three hours.
  const incident = lastHour - (lastHour % 86_400_000) - 5 * 86_400_000 + 14 * HOUR;

  /** A request id of the seeded history, in the shape of the server's own (a UUID). */
  const requestId = () => {
    const hex = Array.from({ length: 4 }, () =>
      Math.floor(random() * 2 ** 32)
        .toString(16)
        .padStart(8, '0'),
    ).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  };
  const usage: (typeof chatUsage.$inferInsert)[] = [];
  const requests: RequestRecord[] = [];
  /** Each completion a demo node served: its partner's statements and totals show them (lib/admin/demo.ts adds them). */
  const served: DemoServed[] = [];
  const fee = config().TRIAD_NETWORK_FEE_PERCENT;
  const logged = (r: Omit<RequestRecord, 'requestId' | 'orgId' | 'endpoint' | 'traceId'>) =>
    requests.push({ requestId: requestId(), orgId, endpoint: '/api/v1/chat/completions', traceId: null, ...r });
  const histogram = new Map<string, typeof chatLatencyHourly.$inferInsert>();
  const time = (apiKeyId: string, model: string, hourStart: number, kind: 'total' | 'ttft', ms: number) => {
    const bucket = latencyBucket(ms);
    const key = `${apiKeyId}\0${model}\0${hourStart}\0${kind}\0${bucket}`;
    const row = histogram.get(key) ?? { apiKeyId, model, hourStart, kind, bucket, count: 0 };
    row.count += 1;
    histogram.set(key, row);
  };

  for (const client of CLIENTS) {
    const { id: apiKeyId } = await createApiKey(db, { orgId, label: client.label });
    for (let hourStart = firstHour; hourStart <= lastHour; hourStart += HOUR) {
      const day = new Date(hourStart).getUTCDay();
      const busy = client.peak * client.shape(new Date(hourStart).getUTCHours()) * (day === 0 || day === 6 ? client.weekend : 1);
      for (const [model, share] of client.models) {
        const requests = Math.round(busy * share * (0.7 + 0.6 * random()));
        if (!requests) continue;
        const demo = model === DEMO_MODEL;
        const bad = demo && hourStart >= incident && hourStart < incident + 3 * HOUR;
        const slow = bad ? 3 : 1;
        const streamed = Math.round(requests * client.streamed);
        for (const [stream, n] of [
          [true, streamed],
          [false, requests - streamed],
        ] as const) {
          if (!n) continue;
          let failed = 0;
          for (let i = 0; i < n; i++) if (random() < (bad ? 0.22 : client.errors)) failed++;
          const cut = Math.round((n - failed) * (client.completion > 300 ? 0.04 : 0.01));
          const moment = () => hourStart + Math.floor(random() * HOUR);
          const at = () => new Date(moment());
          const completed = (count: number, outcome: string) => {
            if (!count) return;
            let prompt = 0;
            let completion = 0;
            // What they cost in all: each completion's cost at its server's prices, summed as live usage sums them.
            let spent = '0';
            for (let i = 0; i < count; i++) {
              const p = Math.round(around(client.prompt));
              const c = Math.round(outcome === 'length' ? client.completion * 2.5 : around(client.completion));
              prompt += p;
              completion += c;
              let pick = random() * WEIGHTS;
              const server = Math.max(
                0,
                SERVERS.findIndex((s) => (pick -= s.weight) < 0),
              );
              const total = around(LATENCY[model]!.total * slow);
              time(apiKeyId, model, hourStart, 'total', total);
              const ttft = stream ? Math.min(total, around(LATENCY[model]!.ttft * slow)) : null;
              if (ttft !== null) time(apiKeyId, model, hourStart, 'ttft', ttft);
              const node = DEMO_SERVERS[server]!.node;
              const cost = demo ? costOf({ prompt_tokens: p, completion_tokens: c }, SERVERS[server]!.prices) : '0';
              spent = addDecimals(spent, cost);
              if (demo) served.push({ node, hourStart, requests: 1, tokens: p + c, usd: splitCost(cost, fee).earned });
              logged({
                apiKeyId,
                model,
                provider: demo ? node : model,
                status: 200,
                stream,
                latencyMs: Math.round(total),
                ttftMs: ttft === null ? null : Math.round(ttft),
                promptTokens: p,
                completionTokens: c,
                cost,
                error: null,
                at: moment(),
              });
            }
            usage.push({
              apiKeyId,
              model,
              requests: count,
              promptTokens: prompt,
              completionTokens: completion,
              cost: spent,
              stream,
              outcome,
              createdAt: at(),
            });
          };
          completed(n - failed - cut, 'stop');
          completed(cut, 'length');
          // A failure: the demo model's node timing out (in the bad afternoon) or answering an error; the
          // guide refusing a key over its concurrency cap.
          for (let i = 0; i < failed; i++) {
            logged({
              apiKeyId,
              model,
              provider: demo ? DEMO_SERVERS[Math.floor(random() * DEMO_SERVERS.length)]!.node : null,
              status: demo ? 502 : 429,
              stream,
              latencyMs: Math.round(demo ? around(LATENCY[model]!.total * slow) : around(2)),
              ttftMs: null,
              promptTokens: 0,
              completionTokens: 0,
              cost: '0',
              error: demo ? (bad ? 'upstream_timeout' : 'upstream_error') : 'concurrency_limit_exceeded',
              at: moment(),
            });
          }
          if (failed)
            usage.push({
              apiKeyId,
              model,
              requests: failed,
              promptTokens: 0,
              completionTokens: 0,
              stream,
              outcome: 'failed',
              createdAt: at(),
            });
        }
      }
    }
  }
  for (let i = 0; i < usage.length; i += 1000) {
    await yieldToServer();
    await db.insert(chatUsage).values(usage.slice(i, i + 1000));
  }
  const latency = [...histogram.values()];
  for (let i = 0; i < latency.length; i += 1000) {
    await yieldToServer();
    await db.insert(chatLatencyHourly).values(latency.slice(i, i + 1000));
  }
  // In the order of their time: the log is read newest first by id, and its retention finds the oldest by id.
  requests.sort((a, b) => a.at - b.at);
  await insertRequests(db, requests, yieldToServer);
  return {
    keys: CLIENTS.length,
    usageRows: usage.length,
    latencyRows: latency.length,
    requests: requests.length,
    served,
  };
}
