/*
 * Input that fails its schema, as every part of Triad raises it: each API group's route wrapper turns
 * a BadInputError into its own 400 (stats INVALID_PARAMETERS, aliases NOT_FOUND, chat
 * invalid_request_error), so domain code never needs to know which group called it.
 */
import { z } from 'zod';

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

type Issue = z.core.$ZodIssue;
/**
 * An issue as the client can act on it: a union's (a field that may be text or a list, say) is that of
 * the one branch that got further into the value than the others — `input.1.call_id: …`, not
 * `input: Invalid input` — and stays the union's when no branch did.
 */
function specific(issue: Issue): Issue {
  if (issue.code !== 'invalid_union' || !issue.errors.length) return issue;
  const depth = (branch: Issue[]) => Math.max(...branch.map((i) => i.path.length));
  const ranked = issue.errors.filter((b) => b.length).sort((a, b) => depth(b) - depth(a));
  if (!ranked[0] || depth(ranked[0]) === 0 || (ranked[1] && depth(ranked[1]) === depth(ranked[0]))) return issue;
  const inner = specific(ranked[0].find((i) => i.path.length === depth(ranked[0]!))!);
  return { ...inner, path: [...issue.path, ...inner.path] };
}

export function describeZodError(error: z.ZodError): { detail: string; param?: string } {
  const all = error.issues.map(specific);
  const issues = all.slice(0, 5).map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
  const first = all[0];
  return { detail: issues.join('; '), param: first?.path.length ? first.path.join('.') : undefined };
}

/**
 * A path parameter that names a stored object (an id): 1–200 characters, no NUL. PostgreSQL text cannot
 * hold NUL, so such an id is refused here, as the query's and the body's are (lib/http/validation.ts,
 * lib/http/body.ts), rather than fail in the database.
 */
export const pathId = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => !s.includes('\u0000'), 'must not contain a NUL character');

/** The path parameters of a route with one id (`/…/[id]`). */
export const idParams = z.object({ id: pathId });

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const { detail, param } = describeZodError(result.error);
    throw new BadInputError(detail, param);
  }
  return result.data;
}
