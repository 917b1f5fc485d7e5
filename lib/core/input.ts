/*
 * Input that fails its schema, as every part of Triad raises it: each API group's route wrapper turns
 * a BadInputError into its own 400 (stats INVALID_PARAMETERS, aliases NOT_FOUND, chat
 * invalid_request_error), so domain code never needs to know which group called it.
 */
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
