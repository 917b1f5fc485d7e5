import { multiplyDecimals, shiftDecimal, subtractDecimals, weightedSum } from '@/lib/core/decimal';

/*
 * Prices and costs (design §17): a provider charges USD per million prompt tokens and per million
 * completion tokens (decimal texts; null: free); a completion costs prompt tokens × the prompt price +
 * completion tokens × the completion price, exactly. `price_per_1k` is the shorthand that sets both
 * (USD per 1 000 tokens, × 1 000 per million). What a node serves earns its cost less the network's
 * fee (TRIAD_NETWORK_FEE_PERCENT): cost = earned + fee, to the last digit.
 */
export type Prices = { prompt: string | null; completion: string | null };

/** USD for `prompt` and `completion` tokens at `prices` (decimal text, e.g. `0.000123`). */
export function costOf(tokens: { prompt_tokens: number; completion_tokens: number }, prices: Prices): string {
  return weightedSum(
    [
      [tokens.prompt_tokens, prices.prompt],
      [tokens.completion_tokens, prices.completion],
    ],
    6,
  );
}

/** USD per 1 000 tokens as USD per million. */
export const perMillion = (per1k: string): string => multiplyDecimals(per1k, '1000');

/** The shorthand of two prices that are the same: USD per 1 000 tokens (null when they differ or are unset). */
export const per1kOf = (p: Prices): string | null => (p.prompt !== null && p.prompt === p.completion ? shiftDecimal(p.prompt, 3) : null);

/** A cost split into what the serving node earns and the network's fee, `feePercent` of it (0–100). */
export function splitCost(cost: string, feePercent: string): { earned: string; fee: string } {
  const fee = shiftDecimal(multiplyDecimals(cost, feePercent), 2);
  return { earned: subtractDecimals(cost, fee), fee };
}

/** The cost as JSON carries it (a number, as OpenRouter's usage does; the exact figure is kept in the ledger). */
export const costNumber = (cost: string): number => Number(cost);
