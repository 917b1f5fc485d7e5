import type Redis from 'ioredis';
import { ceilDecimal, multiplyDecimals, shiftDecimal } from '@/lib/core/decimal';
import type { BudgetStore, HoldLine } from './store';

/*
 * Budgets in Redis (./store.ts), shared by every instance: each reservation and settlement is one Lua
 * script, atomic. Amounts are whole nano-dollars (10⁻⁹ USD), which Lua's numbers hold exactly up to
 * $9 million: a reservation and a cost are rounded up to them, so the counted spend is never below the
 * exact one. Per scope and period a hash {spent, reserved}; per scope a sorted set of its holds by
 * expiry and a hash of each hold's period and amount.
 */
const NANO = 9;
const toNano = (usd: string) => multiplyDecimals(ceilDecimal(usd, NANO), '1000000000');
const fromNano = (n: string | null | undefined) => (n ? shiftDecimal(n, NANO) : '0');

// KEYS: per line, its spend hash, its scope's holds (sorted set) and hold amounts (hash).
// ARGV: id, now, expiresAt, lines, then per line: spend-key prefix of its scope, period start, limit, amount, expire-at (ms, 0: never).
// A scope's lapsed holds (hk: by expiry, ak: their periods and amounts) removed, their amounts taken off
// the `reserved` of their period's spend hash (prefix .. period). Shared by RESERVE and SWEEP.
const SWEEP_SCOPE = `
local function sweep(hk, ak, now, prefix)
  for _, h in ipairs(redis.call('ZRANGEBYSCORE', hk, '-inf', '(' .. now)) do
    local v = redis.call('HGET', ak, h)
    if v then
      local p, a = string.match(v, '^(%d+):(%d+)$')
      redis.call('HINCRBY', prefix .. p, 'reserved', -tonumber(a))
      redis.call('HDEL', ak, h)
    end
    redis.call('ZREM', hk, h)
  end
end`;

const RESERVE = `${SWEEP_SCOPE}
local id, now, exp, n = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
for i = 1, n do
  sweep(KEYS[(i-1)*3+2], KEYS[(i-1)*3+3], now, ARGV[4+(i-1)*5+1])
end
for i = 1, n do
  local sk = KEYS[(i-1)*3+1]
  local limit, amount = tonumber(ARGV[4+(i-1)*5+3]), tonumber(ARGV[4+(i-1)*5+4])
  local spent = tonumber(redis.call('HGET', sk, 'spent') or '0')
  local reserved = tonumber(redis.call('HGET', sk, 'reserved') or '0')
  if spent + reserved + amount > limit then return {i, tostring(limit - spent - reserved)} end
end
for i = 1, n do
  local sk, hk, ak = KEYS[(i-1)*3+1], KEYS[(i-1)*3+2], KEYS[(i-1)*3+3]
  local period, amount, expireAt = ARGV[4+(i-1)*5+2], ARGV[4+(i-1)*5+4], tonumber(ARGV[4+(i-1)*5+5])
  redis.call('HINCRBY', sk, 'reserved', amount)
  if expireAt > 0 then redis.call('PEXPIREAT', sk, expireAt) end
  redis.call('ZADD', hk, exp, id)
  redis.call('HSET', ak, id, period .. ':' .. amount)
end
return 0`;

// KEYS: a scope's holds and hold amounts. ARGV: now, the scope's spend-key prefix. Its lapsed holds removed.
const SWEEP = `${SWEEP_SCOPE}
sweep(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
return 0`;

// KEYS: per line, its spend hash, holds, hold amounts. ARGV: id, lines, cost.
const SETTLE = `
local id, n, cost = ARGV[1], tonumber(ARGV[2]), ARGV[3]
for i = 1, n do
  local sk, hk, ak = KEYS[(i-1)*3+1], KEYS[(i-1)*3+2], KEYS[(i-1)*3+3]
  if redis.call('ZREM', hk, id) == 1 then
    local v = redis.call('HGET', ak, id)
    if v then
      local p, a = string.match(v, '^(%d+):(%d+)$')
      redis.call('HINCRBY', sk, 'reserved', -tonumber(a))
    end
    redis.call('HDEL', ak, id)
  end
  redis.call('HINCRBY', sk, 'spent', cost)
end
return 0`;

/** The scripts as commands of the connection: sent once, then called by their SHA (EVALSHA). */
type Scripted = Redis & {
  budgetReserve(numKeys: number, ...args: string[]): Promise<number | [number, string]>;
  budgetSettle(numKeys: number, ...args: string[]): Promise<number>;
  budgetSweep(numKeys: number, ...args: string[]): Promise<number>;
};

export function redisBudgets(client: Redis, prefix: string, expiry: (periodStart: number, scope: string) => number): BudgetStore {
  if (!('budgetReserve' in client)) {
    client.defineCommand('budgetReserve', { lua: RESERVE });
    client.defineCommand('budgetSettle', { lua: SETTLE });
    client.defineCommand('budgetSweep', { lua: SWEEP });
  }
  const redis = client as Scripted;
  const spendPrefix = (scope: string) => `${prefix}:budget:${scope}:`;
  const keysOf = (lines: Pick<HoldLine, 'scope' | 'periodStart'>[]) =>
    lines.flatMap((l) => [
      `${spendPrefix(l.scope)}${l.periodStart}`,
      `${prefix}:budget-holds:${l.scope}`,
      `${prefix}:budget-hold:${l.scope}`,
    ]);
  return {
    kind: 'redis',
    async reserve(id, lines, expiresAt, now) {
      const args = lines.flatMap((l) => [
        spendPrefix(l.scope),
        String(l.periodStart),
        toNano(l.limit),
        toNano(l.amount),
        String(expiry(l.periodStart, l.scope)),
      ]);
      const r = (await redis.budgetReserve(
        lines.length * 3,
        ...keysOf(lines),
        id,
        String(now),
        String(expiresAt),
        String(lines.length),
        ...args,
      )) as number | [number, string];
      if (r === 0) return null;
      const [i, left] = r as [number, string];
      return { scope: lines[i - 1]!.scope, remaining: Number(left) > 0 ? fromNano(String(Math.floor(Number(left)))) : '0' };
    },
    async settle(id, lines, cost) {
      await redis.budgetSettle(lines.length * 3, ...keysOf(lines), id, String(lines.length), toNano(cost));
    },
    async extend(id, lines, expiresAt) {
      for (const l of lines) await redis.zadd(`${prefix}:budget-holds:${l.scope}`, 'XX', expiresAt, id);
    },
    async figures(scope, periodStart) {
      await redis.budgetSweep(
        2,
        `${prefix}:budget-holds:${scope}`,
        `${prefix}:budget-hold:${scope}`,
        String(Date.now()),
        spendPrefix(scope),
      );
      const [spent, reserved] = await redis.hmget(`${spendPrefix(scope)}${periodStart}`, 'spent', 'reserved');
      return { spent: fromNano(spent), reserved: fromNano(reserved) };
    },
  };
}
