import { BadInputError } from '@/lib/core/input';

export { describeZodError } from '@/lib/core/input';

/**
 * The query string as an object: a parameter given once is a string, a repeated one an array
 * (so a schema expecting one value refuses a repeated one). `name[]` is read as `name`.
 */
export function queryObject(url: string | URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [rawKey, value] of new URL(url).searchParams) {
    // PostgreSQL text cannot hold NUL: refuse it here rather than fail in the database.
    if (rawKey.includes('\u0000') || value.includes('\u0000'))
      throw new BadInputError(`${rawKey.replaceAll('\u0000', '')}: must not contain a NUL character`, rawKey);
    const key = rawKey.endsWith('[]') ? rawKey.slice(0, -2) : rawKey;
    const prev = out[key];
    const forceArray = rawKey.endsWith('[]');
    if (prev === undefined) out[key] = forceArray ? [value] : value;
    else if (Array.isArray(prev))
      prev.push(value); // in place: a copy per value would be quadratic
    else out[key] = [prev, value];
  }
  return out;
}
