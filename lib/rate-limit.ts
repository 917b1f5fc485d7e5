import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
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
// Promises, stored at once: concurrent first requests must share one limiter and one client.
type State = { limiters: Map<string, Promise<RateLimiterAbstract>>; redis?: Promise<RedisClient | null> };
declare module '@/lib/core/runtime' {
  interface Runtime {
    rateLimit: State;
  }
}

const state = () => shared('rateLimit', () => ({ limiters: new Map() }));

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

function limiterFor(name: string, points: number, durationS: number): Promise<RateLimiterAbstract> {
  const id = `${name}:${points}:${durationS}`;
  const s = state();
  let limiter = s.limiters.get(id);
  if (!limiter) s.limiters.set(id, (limiter = makeLimiter(id, points, durationS)));
  return limiter;
}

async function makeLimiter(id: string, points: number, durationS: number): Promise<RateLimiterAbstract> {
  const memory = new RateLimiterMemory({ points, duration: durationS, keyPrefix: id });
  const redis = await redisClient();
  return redis
    ? new RateLimiterRedis({
        storeClient: redis,
        points,
        duration: durationS,
        keyPrefix: `${config().TRIAD_REDIS_PREFIX}:rl:${id}`,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      })
    : memory;
}

/** Counts one request of `key` against `points` per `durationS` seconds. Never throws for a store failure. */
export async function consume(name: string, key: string, points: number, durationS: number): Promise<RateDecision> {
  const limiter = await limiterFor(name, points, durationS);
  const decide = (res: RateLimiterRes, allowed: boolean): RateDecision => ({
    allowed,
    limit: points,
    remaining: Math.max(0, res.remainingPoints),
    resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
    retryAfterS: allowed ? 0 : Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  try {
    return decide(await limiter.consume(key), true);
  } catch (e) {
    if (e instanceof RateLimiterRes) {
      rateLimitRejected(name);
      return decide(e, false);
    }
    // Neither Redis nor the insurance limiter answered: let the request through rather than fail it.
    log.warn('rate limiter failed; request allowed', { limiter: name, error: (e as Error)?.message });
    return { allowed: true, limit: points, remaining: points, resetAt: Math.ceil(Date.now() / 1000) + durationS, retryAfterS: 0 };
  }
}

/**
 * How many of `points` a `key` has used in the current window, without counting anything: `allowed`
 * is false once all are used (for limits on failures, counted only when one happens).
 */
export async function peek(name: string, key: string, points: number, durationS: number): Promise<RateDecision> {
  const limiter = await limiterFor(name, points, durationS);
  try {
    const res = await limiter.get(key);
    const used = res?.consumedPoints ?? 0;
    const msLeft = res?.msBeforeNext ?? durationS * 1000;
    const allowed = used < points;
    return {
      allowed,
      limit: points,
      remaining: Math.max(0, points - used),
      resetAt: Math.ceil((Date.now() + msLeft) / 1000),
      retryAfterS: allowed ? 0 : Math.max(1, Math.ceil(msLeft / 1000)),
    };
  } catch (e) {
    log.warn('rate limiter failed; request allowed', { limiter: name, error: (e as Error)?.message });
    return { allowed: true, limit: points, remaining: points, resetAt: Math.ceil(Date.now() / 1000) + durationS, retryAfterS: 0 };
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
