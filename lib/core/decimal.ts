/**
 * Exact arithmetic on non-negative decimal texts (`unit_shared`, `usd_earned`, prices and costs),
 * never floating point: scaled BigInts. Inputs are validated by DECIMAL_TEXT first.
 */
export const DECIMAL_TEXT = /^\d{1,30}(\.\d{1,18})?$/;

type Scaled = { units: bigint; scale: number };

function parse(text: string): Scaled {
  const [whole, frac = ''] = text.split('.');
  return { units: BigInt(whole! + frac), scale: frac.length };
}

/** The shortest text of `units` × 10^−scale (no trailing zeros). */
function format({ units, scale }: Scaled): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = scale ? digits.slice(0, -scale) : digits;
  const frac = scale ? digits.slice(-scale).replace(/0+$/, '') : '';
  return (negative ? '-' : '') + (frac ? `${whole}.${frac}` : whole);
}

const align = (x: Scaled, y: Scaled): [bigint, bigint, number] => {
  const scale = Math.max(x.scale, y.scale);
  return [x.units * 10n ** BigInt(scale - x.scale), y.units * 10n ** BigInt(scale - y.scale), scale];
};

export function addDecimals(a: string, b: string): string {
  const [x, y, scale] = align(parse(a), parse(b));
  return format({ units: x + y, scale });
}

/** a − b (negative when b is the larger: `-0.5`). */
export function subtractDecimals(a: string, b: string): string {
  const [x, y, scale] = align(parse(a), parse(b));
  return format({ units: x - y, scale });
}

/** a × b, exactly (the scales add). */
export function multiplyDecimals(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  return format({ units: x.units * y.units, scale: x.scale + y.scale });
}

/** Texts that recur (prices) as parsed: at most KEPT_MAX of them. */
const kept = new Map<string, Scaled>();
const KEPT_MAX = 1000;
function parseKept(text: string): Scaled {
  let x = kept.get(text);
  if (!x) {
    x = parse(text);
    if (kept.size < KEPT_MAX) kept.set(text, x);
  }
  return x;
}

/**
 * Σ countᵢ × priceᵢ ÷ 10^places, exactly: whole counts (tokens) times decimal texts (null: nothing).
 * A cost from token counts and prices per million in one step, the prices' texts parsed once.
 */
export function weightedSum(terms: readonly (readonly [count: number, price: string | null])[], places: number): string {
  let scale = 0;
  for (const [count, price] of terms) if (price && count) scale = Math.max(scale, parseKept(price).scale);
  let units = 0n;
  for (const [count, price] of terms) {
    if (!price || !count) continue;
    const x = parseKept(price);
    units += BigInt(count) * x.units * (x.scale === scale ? 1n : 10n ** BigInt(scale - x.scale));
  }
  return units === 0n ? '0' : format({ units, scale: scale + places });
}

/** a ÷ 10^places, exactly (a shift of the decimal point). */
export function shiftDecimal(a: string, places: number): string {
  const x = parse(a);
  return format({ units: x.units, scale: x.scale + places });
}

/** −1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const [x, y] = align(parse(a), parse(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The text rounded up to `places` decimals (a reservation never falls short of what it covers). */
export function ceilDecimal(a: string, places: number): string {
  const x = parse(a);
  if (x.scale <= places) return format(x);
  const div = 10n ** BigInt(x.scale - places);
  const q = x.units / div;
  return format({ units: x.units % div ? q + 1n : q, scale: places });
}
