import { z } from 'zod';

/*
 * The alias group's request schemas: the route handlers and the dashboard's forms parse with
 * these same objects. Unknown fields are stripped, never stored. Safe to import in the browser.
 */

export const ALIAS_TYPES = ['live', 'conference'] as const;
export const aliasTypeSchema = z.enum(ALIAS_TYPES);
export type AliasType = z.infer<typeof aliasTypeSchema>;

/** HS256 needs a key of at least 256 bits. */
export const MIN_JWT_SECRET_BYTES = 32;
const utf8Length = (s: string) => new TextEncoder().encode(s).length;

/** Unix seconds; bounded so that no date arithmetic overflows (year 9999). */
export const unixSeconds = z.number().int('must be an integer (Unix seconds)').min(0).max(253_402_300_799);

const name = z.string().trim().max(200, 'at most 200 characters');
/** The interface fixes no minimum; 6 characters, with failed attempts limited (TRIAD_ACCESS_FAILURES_PER_MIN), keep guessing slow. */
export const MIN_PASSCODE_LENGTH = 6;
const passcode = z
  .string()
  .min(MIN_PASSCODE_LENGTH, `must be at least ${MIN_PASSCODE_LENGTH} characters`)
  .max(128, 'at most 128 characters');
const jwtSecret = z
  .string()
  .max(512, 'at most 512 characters')
  .refine((s) => utf8Length(s) >= MIN_JWT_SECRET_BYTES, `must be at least ${MIN_JWT_SECRET_BYTES} bytes (HS256 needs 256 bits)`);
const streamKey = z.string().min(1, 'must not be empty').max(256, 'at most 256 characters');

export const createAliasSchema = z.object({
  type: aliasTypeSchema,
  name: name.nullish(),
  passcode: passcode.nullish(),
  jwt_secret: jwtSecret.nullish(),
  stream_key: streamKey.nullish(),
  expired_at: unixSeconds,
});
export type CreateAliasInput = z.infer<typeof createAliasSchema>;

/** Update: `type` required as on create; an omitted field stays as it is, `null` clears it. */
export const updateAliasSchema = z.object({
  type: aliasTypeSchema,
  name: name.nullish(),
  passcode: passcode.nullish(),
  jwt_secret: jwtSecret.nullish(),
  stream_key: streamKey.nullish(),
  expired_at: unixSeconds.optional(),
});
export type UpdateAliasInput = z.infer<typeof updateAliasSchema>;

export const listAliasesQuerySchema = z.object({
  type: aliasTypeSchema.optional(),
  /** Beyond the interface: the id, or part of the name (case-insensitive). */
  q: z.string().trim().max(100).optional(),
  after: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const retrieveAliasQuerySchema = z.object({ passcode: z.string().max(1024).optional() });

/** Alias ids: 10 lowercase letters and digits. */
export const ALIAS_ID_PATTERN = /^[a-z0-9]{10}$/;
/** The `[id]` of an alias route, as the path gives it (checked against ALIAS_ID_PATTERN by each route: the replies differ). */
export const aliasPathParams = z.object({ id: z.string() });

/** Claims of an alias JWT (interface 4.9); `exp`, `iat`, `nbf` are the registered ones jose checks. */
export const aliasJwtClaimsSchema = z.object({
  alias: z.string().min(1),
  user_id: z.string().min(1).max(256),
  host: z.boolean(),
  expires_in: z.number().int().positive().optional(),
  iat: z.number().optional(),
  exp: z.number().optional(),
});
export type AliasJwtClaims = z.infer<typeof aliasJwtClaimsSchema>;

/** The alias object of the wire format (interface 2.4); `inserted_at` only from retrieve by id. */
export const aliasWireSchema = z.object({
  id: z.string(),
  type: aliasTypeSchema,
  name: z.string().nullable(),
  passcode: z.string().nullable(),
  jwt_secret: z.string().nullable(),
  stream_key: z.string().nullable(),
  expired_at: z.number().int(),
  inserted_at: z.number().int().optional(),
});
export type AliasWire = z.infer<typeof aliasWireSchema>;
/** A page of the alias list (interface 4.6). */
export const aliasPageSchema = z.object({ after: z.string().nullable(), entries: z.array(aliasWireSchema) });
export type AliasPage = z.infer<typeof aliasPageSchema>;
