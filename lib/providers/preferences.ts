import type { Preferences } from '@/lib/chat/schema';
import { unsupportedParameter } from '@/lib/errors/chat';
import type { Live, Recent } from './pool';

/*
 * Routing preferences per request (design §17), as OpenRouter's clients send them in `provider`:
 * `order` (providers tried first, in that order), `only` and `ignore` (by Triad's provider names, the
 * X-Triad-Provider header's), `allow_fallbacks` (false: none beyond `order`, or beyond the first
 * choice), `sort` (`price`: the cheapest first; `latency`: the quickest to a first byte; `throughput`:
 * the most tokens a second — both from this instance's recent history of each provider) and
 * `max_price` (USD per million tokens, per direction). Triad consumes them: the model server never
 * sees them. A key may carry defaults, taken when a request gives none. OpenRouter's fields Triad has
 * no use for (`data_collection`, `require_parameters`, `quantizations`…) are accepted and ignored.
 */
export type { Preferences };

/** A price as a number for comparing (null: free). */
const priceOf = (p: string | null) => (p === null ? 0 : Number(p));

/**
 * What `prefs` make of `serving` (the providers that may serve the request): those left (`left`), the
 * order to try them in (null: the usual weighted choice among them), and how many may be tried (1
 * when allow_fallbacks is false without an order). Throws 400 naming the preference that leaves none.
 */
export function preferred(
  serving: Live[],
  prefs: Preferences,
  recent: (l: Live) => Recent,
  model: string,
): { left: Live[]; order: Live[] | null; attempts: number | null } {
  let left = serving;
  const cut = (field: string, keep: (l: Live) => boolean, why: string) => {
    const kept = left.filter(keep);
    if (!kept.length) throw unsupportedParameter(`provider.${field}`, `No provider of \`${model}\` is left by provider.${field}: ${why}.`);
    left = kept;
  };
  const named = (list: string[]) => (l: Live) => list.includes(l.record.name);
  if (prefs.only?.length) cut('only', named(prefs.only), `it serves here through ${serving.map((l) => l.record.name).join(', ')}`);
  if (prefs.ignore?.length) cut('ignore', (l) => !named(prefs.ignore!)(l), 'every provider that serves it is ignored');
  const max = prefs.max_price;
  if (max && (max.prompt !== undefined || max.completion !== undefined))
    cut(
      'max_price',
      (l) =>
        (max.prompt === undefined || priceOf(l.record.pricePrompt) <= max.prompt) &&
        (max.completion === undefined || priceOf(l.record.priceCompletion) <= max.completion),
      'every provider that serves it charges more',
    );
  const order = prefs.order ?? [];
  const once = prefs.allow_fallbacks === false ? 1 : null;
  if (!order.length && !prefs.sort) return { left, order: null, attempts: once };
  const first = order.flatMap((name) => left.filter((l) => l.record.name === name));
  if (prefs.allow_fallbacks === false && order.length) {
    if (!first.length)
      throw unsupportedParameter('provider.order', `None of provider.order serves \`${model}\` here, and allow_fallbacks is false.`);
    return { left: first, order: first, attempts: null };
  }
  const rest = left.filter((l) => !first.includes(l));
  if (prefs.sort) rest.sort(by(prefs.sort, recent));
  return { left, order: [...first, ...rest], attempts: once };
}

/** Cheapest, quickest or fastest first; a provider with no history yet after those with one (latency, throughput). */
function by(sort: 'price' | 'latency' | 'throughput', recent: (l: Live) => Recent) {
  if (sort === 'price')
    return (a: Live, b: Live) => totalPrice(a) - totalPrice(b) || priceOf(a.record.pricePrompt) - priceOf(b.record.pricePrompt);
  if (sort === 'latency') return (a: Live, b: Live) => (recent(a).firstByteMs ?? Infinity) - (recent(b).firstByteMs ?? Infinity);
  return (a: Live, b: Live) => (recent(b).tokensPerS ?? -1) - (recent(a).tokensPerS ?? -1);
}
const totalPrice = (l: Live) => priceOf(l.record.pricePrompt) + priceOf(l.record.priceCompletion);
