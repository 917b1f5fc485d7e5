/**
 * Exact sums of the decimal texts of `unit_shared` and `usd_earned` (never floating point):
 * scaled BigInts. Inputs are validated by DECIMAL_TEXT first.
 */
export const DECIMAL_TEXT = /^\d{1,30}(\.\d{1,18})?$/;

function parse(text: string): { units: bigint; scale: number } {
  const [whole, frac = ''] = text.split('.');
  return { units: BigInt(whole! + frac), scale: frac.length };
}

export function addDecimals(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  const sum = x.units * 10n ** BigInt(scale - x.scale) + y.units * 10n ** BigInt(scale - y.scale);
  if (scale === 0) return sum.toString();
  const digits = sum.toString().padStart(scale + 1, '0');
  const frac = digits.slice(-scale).replace(/0+$/, '');
  return frac ? `${digits.slice(0, -scale)}.${frac}` : digits.slice(0, -scale);
}
