import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
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
const G = Symbol.for('triad.rateLimit');
type State = { limiters: Map<string, RateLimiterAbstract>; redis?: RedisClient | null };

function state(): State {
  const g = globalThis as { [G]?: State };
  g[G] ??= { limiters: new Map() };
  return g[G];
}

async function redisClient(): Promise<RedisClient | null> {
  const s = state();
  if (s.redis !== undefined) return s.redis;
  const url = config().REDIS_URL;
  if (!url) return (s.redis = null);
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
  return (s.redis = client);
}

async function limiterFor(name: string, points: number, durationS: number): Promise<RateLimiterAbstract> {
  const id = `${name}:${points}:${durationS}`;
  const s = state();
  const existing = s.limiters.get(id);
  if (existing) return existing;
  const memory = new RateLimiterMemory({ points, duration: durationS, keyPrefix: id });
  const redis = await redisClient();
  const limiter = redis
    ? new RateLimiterRedis({
        storeClient: redis,
        points,
        duration: durationS,
        keyPrefix: `${config().TRIAD_REDIS_PREFIX}:rl:${id}`,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      })
    : memory;
  s.limiters.set(id, limiter);
  return limiter;
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
    if (e instanceof RateLimiterRes) return decide(e, false);
    // Neither Redis nor the insurance limiter answered: let the request through rather than fail it.
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
