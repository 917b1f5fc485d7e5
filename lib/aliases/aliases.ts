import { randomInt } from 'node:crypto';
import { and, desc, eq, ilike, lt, or, sql, type SQL } from 'drizzle-orm';
import { secretBox } from '@/lib/auth/secret-box';
import type { Db } from '@/lib/db/client';
import { aliases } from '@/lib/db/schema';
import { decodeCursor, encodeCursor } from '@/lib/core/cursor';
import { BadInputError } from '@/lib/core/input';
import type { Alias, AliasRow } from './alias';
import { cacheAlias, cachedAlias, forgetAlias } from './cache';
import type { AliasType, AliasWire, CreateAliasInput, UpdateAliasInput } from './schema';

/*
 * Aliases of an organization. Passcode, JWT secret and stream key are stored encrypted
 * (they must be shown to the owner again); every function here is scoped to one organization
 * except `findAliasById`, which the access rules of retrieve-by-id use.
 */

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const newAliasId = () => Array.from({ length: 10 }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join('');
const nowS = () => Math.floor(Date.now() / 1000);

const seal = (v: string | null | undefined) => (v == null ? v : secretBox().encrypt(v));
const open = (v: string | null) => (v === null ? null : secretBox().decrypt(v));

function decrypt(row: AliasRow): Alias {
  const { passcodeEnc, jwtSecretEnc, streamKeyEnc, ...rest } = row;
  return { ...rest, passcode: open(passcodeEnc), jwtSecret: open(jwtSecretEnc), streamKey: open(streamKeyEnc) };
}

export const isExpired = (alias: Pick<Alias, 'expiredAt'>, now = nowS()) => alias.expiredAt <= now;

/** The wire object; `reveal` says which secrets this caller may see (others are null). */
export function toWire(
  a: Alias,
  { reveal, insertedAt }: { reveal: { passcode: boolean; jwtSecret: boolean; streamKey: boolean }; insertedAt: boolean },
): AliasWire {
  return {
    id: a.id,
    type: a.type,
    name: a.name,
    passcode: reveal.passcode ? a.passcode : null,
    jwt_secret: reveal.jwtSecret ? a.jwtSecret : null,
    stream_key: reveal.streamKey ? a.streamKey : null,
    expired_at: a.expiredAt,
    ...(insertedAt ? { inserted_at: a.insertedAt } : {}),
  };
}
export const OWNER = { passcode: true, jwtSecret: true, streamKey: true };

export async function createAlias(db: Db, { orgId, input }: { orgId: string; input: CreateAliasInput }): Promise<Alias> {
  if (input.expired_at <= nowS()) throw new BadInputError('expired_at: must be in the future (Unix seconds)', 'expired_at');
  for (let attempt = 0; ; attempt++) {
    const [row] = await db
      .insert(aliases)
      .values({
        id: newAliasId(),
        orgId,
        type: input.type,
        name: input.name ?? null,
        passcodeEnc: seal(input.passcode) ?? null,
        jwtSecretEnc: seal(input.jwt_secret) ?? null,
        streamKeyEnc: seal(input.stream_key) ?? null,
        expiredAt: input.expired_at,
        insertedAt: nowS(),
      })
      .onConflictDoNothing({ target: aliases.id })
      .returning();
    if (row) return decrypt(row);
    if (attempt >= 5) throw new Error('could not find a free alias id');
  }
}

/** Retrieve-by-id is the hot path of the alias API: one prepared statement per database handle. */
const byIdStatements = new WeakMap<Db, ReturnType<typeof prepareById>>();
const prepareById = (db: Db) =>
  db
    .select()
    .from(aliases)
    .where(eq(aliases.id, sql.placeholder('id')))
    .limit(1)
    .prepare('alias_by_id');

/**
 * Any organization's alias by id (retrieve-by-id decides access itself). With `cacheTtlMs`, a
 * cached copy up to that old may answer (see cache.ts); without, the database always does.
 */
export async function findAliasById(db: Db, id: string, { cacheTtlMs = 0 } = {}): Promise<Alias | null> {
  const cached = cacheTtlMs > 0 ? cachedAlias(id) : undefined;
  if (cached) return cached;
  let statement = byIdStatements.get(db);
  if (!statement) byIdStatements.set(db, (statement = prepareById(db)));
  const [row] = await statement.execute({ id });
  if (!row) return null;
  const alias = decrypt(row);
  cacheAlias(alias, cacheTtlMs);
  return alias;
}

/** One page of the organization's aliases, newest first. */
export async function listAliases(
  db: Db,
  { orgId, type, q, after, limit = 50 }: { orgId: string; type?: AliasType; q?: string; after?: string; limit?: number },
): Promise<{ entries: Alias[]; after: string | null }> {
  const where: SQL[] = [eq(aliases.orgId, orgId)];
  if (type) where.push(eq(aliases.type, type));
  if (q) where.push(or(eq(aliases.id, q.toLowerCase()), ilike(aliases.name, `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`))!);
  if (after) where.push(lt(aliases.seq, decodeCursor('a1', after)));
  const rows = await db
    .select()
    .from(aliases)
    .where(and(...where))
    .orderBy(desc(aliases.seq))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { entries: page.map(decrypt), after: rows.length > limit && last ? encodeCursor('a1', last.seq) : null };
}

/** Updates the organization's alias; null when it has no such alias. */
export async function updateAlias(
  db: Db,
  { orgId, id, input }: { orgId: string; id: string; input: UpdateAliasInput },
): Promise<Alias | null> {
  const set: Partial<typeof aliases.$inferInsert> = { type: input.type };
  if (input.name !== undefined) set.name = input.name;
  if (input.passcode !== undefined) set.passcodeEnc = seal(input.passcode);
  if (input.jwt_secret !== undefined) set.jwtSecretEnc = seal(input.jwt_secret);
  if (input.stream_key !== undefined) set.streamKeyEnc = seal(input.stream_key);
  if (input.expired_at !== undefined) set.expiredAt = input.expired_at;
  const [row] = await db
    .update(aliases)
    .set(set)
    .where(and(eq(aliases.id, id), eq(aliases.orgId, orgId)))
    .returning();
  forgetAlias(id);
  return row ? decrypt(row) : null;
}

/** Permanently removes the organization's alias; false when it has no such alias. */
export async function deleteAlias(db: Db, { orgId, id }: { orgId: string; id: string }): Promise<boolean> {
  const rows = await db
    .delete(aliases)
    .where(and(eq(aliases.id, id), eq(aliases.orgId, orgId)))
    .returning({ id: aliases.id });
  forgetAlias(id);
  return rows.length > 0;
}

/** Removes aliases expired more than `retentionDays` ago; returns how many. */
export async function purgeExpiredAliases(db: Db, { retentionDays, now = nowS() }: { retentionDays: number; now?: number }) {
  const rows = await db
    .delete(aliases)
    .where(lt(aliases.expiredAt, now - retentionDays * 86_400))
    .returning({ id: aliases.id });
  if (rows.length) forgetAlias();
  return rows.length;
}
