import type { z } from 'zod';

/** Input that fails its schema; each API group turns it into its own 400. */
export class BadInputError extends Error {
  override name = 'BadInputError';
  constructor(
    readonly detail: string,
    /** The first offending field, for formats that name it (the chat group's `param`). */
    readonly param?: string,
  ) {
    super(detail);
  }
}

export function describeZodError(error: z.ZodError): { detail: string; param?: string } {
  const issues = error.issues.slice(0, 5).map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  const first = error.issues[0];
  return { detail: issues.join('; '), param: first?.path.length ? first.path.join('.') : undefined };
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const { detail, param } = describeZodError(result.error);
    throw new BadInputError(detail, param);
  }
  return result.data;
}

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
