import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { config } from '@/lib/config';
import { shared } from '@/lib/core/runtime';
import { log } from '@/lib/log';
import { rateLimitRejected } from '@/lib/metrics';
import { onShutdown } from '@/lib/shutdown';

/**
 * Fixed-window rate limits. In memory when this instance is alone; in Redis (REDIS_URL) when
 * several instances share the load, with an in-memory insurance limiter that takes over while
 * Redis is unreachable, so a Redis outage never turns into errors for clients.
 */
export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the window resets, Unix seconds. */
  resetAt: number;
  /** Seconds to wait before retrying (0 when allowed). */
  retryAfterS: number;
};

type RedisClient = import('ioredis').default;
// Stored at once (a promise while Redis is tried): concurrent first requests must share one counter and one client.
type State = { counters: Map<string, Counter | Promise<Counter>>; redis?: Promise<RedisClient | null> };
declare module '@/lib/core/runtime' {
  interface Runtime {
    rateLimit: State;
  }
}

const state = () => shared('rateLimit', () => ({ counters: new Map() }));

/** The instance's Redis connection (REDIS_URL), shared with budgets (lib/budgets/); null without one. */
export function redisClient(): Promise<RedisClient | null> {
  const s = state();
  s.redis ??= connectRedis();
  return s.redis;
}

async function connectRedis(): Promise<RedisClient | null> {
  const url = config().REDIS_URL;
  if (!url) return null;
  const { default: Redis } = await import('ioredis');
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let warned = false;
  client.on('error', (e: Error) => {
    if (!warned) log.warn('redis unavailable; rate limits fall back to this instance', { error: e.message });
    warned = true;
  });
  client.on('ready', () => (warned = false));
  onShutdown('redis', () => void client.disconnect());
  // Give a fresh connection a moment before the first request is counted (never longer than that).
  await new Promise<void>((resolve) => {
    const done = () => (clearTimeout(t), resolve());
    const t = setTimeout(done, 1000);
    client.once('ready', done);
    client.once('error', done);
  });
  return client;
}

/**
 * Where rate limits are counted now, for /api/health: `memory` (no REDIS_URL), `redis` (connected), or
 * `memory-fallback` (REDIS_URL set but Redis unreachable: each instance counts on its own until it is back).
 */
export async function rateLimitStore(): Promise<'memory' | 'redis' | 'memory-fallback'> {
  if (!config().REDIS_URL) return 'memory';
  const client = await redisClient();
  return client?.status === 'ready' ? 'redis' : 'memory-fallback';
}

/** What a key has used of a window: its points (the one just counted included) and the ms until the window ends. */
type Used = { used: number; msLeft: number };

/** Where a limit's windows are counted: this process's memory, or Redis. */
type Counter = {
  /** Counts one point of `key`. */
  consume(key: string): Used | Promise<Used>;
  /** What `key` has used of its window, counting nothing; null when it has no window open. */
  get(key: string): Used | null | Promise<Used | null>;
};

/**
 * Fixed windows in this process's memory: a key's window opens at its first point and lasts `durationMs`.
 * Synchronous (a Map and a counter; rate-limiter-flexible's memory limiter made a promise, a result object
 * and a timer a key: docs/benchmarks.md). Windows that ended are forgotten when a window opens, at most
 * once a window's length, so memory follows the keys of the last two windows.
 */
export class MemoryWindows implements Counter {
  private readonly windows = new Map<string, { used: number; endsAt: number }>();
  private sweepAt = 0;

  constructor(private readonly durationMs: number) {}

  consume(key: string): Used {
    const now = Date.now();
    let w = this.windows.get(key);
    if (!w || w.endsAt <= now) {
      if (now >= this.sweepAt) this.sweep(now);
      w = { used: 0, endsAt: now + this.durationMs };
      this.windows.set(key, w);
    }
    w.used++;
    return { used: w.used, msLeft: w.endsAt - now };
  }

  get(key: string): Used | null {
    const w = this.windows.get(key);
    const now = Date.now();
    return w && w.endsAt > now ? { used: w.used, msLeft: w.endsAt - now } : null;
  }

  /** How many keys have a window in memory (open, or ended and not yet swept). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number) {
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
    this.sweepAt = now + this.durationMs;
  }
}

/** Windows in Redis, shared by every instance, with rate-limiter-flexible's memory limiter as insurance while Redis is down. */
function redisWindows(redis: RedisClient, id: string, points: number, durationS: number): Counter {
  const limiter = new RateLimiterRedis({
    storeClient: redis,
    points,
    duration: durationS,
    keyPrefix: `${config().TRIAD_REDIS_PREFIX}:rl:${id}`,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ points, duration: durationS, keyPrefix: id }),
  });
  const used = (res: RateLimiterRes): Used => ({ used: res.consumedPoints, msLeft: res.msBeforeNext });
  return {
    async consume(key) {
      try {
        return used(await limiter.consume(key));
      } catch (e) {
        if (e instanceof RateLimiterRes) return used(e); // over the limit: counted all the same
        throw e;
      }
    },
    async get(key) {
      const res = await limiter.get(key);
      return res ? used(res) : null;
    },
  };
}

/** The counter of a limit: in memory at once without REDIS_URL, else once the connection has been tried. */
function counterFor(name: string, points: number, durationS: number): Counter | Promise<Counter> {
  const id = `${name}:${points}:${durationS}`;
  const s = state();
  let counter = s.counters.get(id);
  if (!counter) {
    counter = config().REDIS_URL
      ? redisClient().then((redis) => (redis ? redisWindows(redis, id, points, durationS) : new MemoryWindows(durationS * 1000)))
      : new MemoryWindows(durationS * 1000);
    s.counters.set(id, counter);
  }
  return counter;
}

/** The decision for a key that has used `used` of `points`, its window ending in `msLeft`. */
function decision(points: number, used: number, msLeft: number, allowed = used <= points): RateDecision {
  return {
    allowed,
    limit: points,
    remaining: Math.max(0, points - used),
    resetAt: Math.ceil((Date.now() + msLeft) / 1000),
    retryAfterS: allowed ? 0 : Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

/** Neither Redis nor the insurance limiter answered: the request goes through rather than fail. */
function failedOpen(name: string, points: number, durationS: number, e: unknown): RateDecision {
  log.warn('rate limiter failed; request allowed', { limiter: name, error: (e as Error)?.message });
  return { allowed: true, limit: points, remaining: points, resetAt: Math.ceil(Date.now() / 1000) + durationS, retryAfterS: 0 };
}

/** Counts one request of `key` against `points` per `durationS` seconds. Never throws for a store failure. */
export async function consume(name: string, key: string, points: number, durationS: number): Promise<RateDecision> {
  try {
    const { used, msLeft } = await (await counterFor(name, points, durationS)).consume(key);
    const d = decision(points, used, msLeft);
    if (!d.allowed) rateLimitRejected(name);
    return d;
  } catch (e) {
    return failedOpen(name, points, durationS, e);
  }
}

/**
 * How many of `points` a `key` has used in the current window, without counting anything: `allowed`
 * is false once all are used (for limits on failures, counted only when one happens).
 */
export async function peek(name: string, key: string, points: number, durationS: number): Promise<RateDecision> {
  try {
    const seen = await (await counterFor(name, points, durationS)).get(key);
    const used = seen?.used ?? 0;
    return decision(points, used, seen?.msLeft ?? durationS * 1000, used < points);
  } catch (e) {
    return failedOpen(name, points, durationS, e);
  }
}

/** The `X-RateLimit-*` headers of a decision (and `Retry-After` when refused). */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(d.remaining),
    'X-RateLimit-Reset': String(d.resetAt),
    ...(d.allowed ? {} : { 'Retry-After': String(d.retryAfterS) }),
  };
}
