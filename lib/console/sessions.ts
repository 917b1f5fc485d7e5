import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { type CredentialOrg, findAdminToken, findOrgByToken, type Organization } from '@/lib/auth/credentials';
import { hashToken, safeEqual, tokenMatches, TOKEN_PREFIX } from '@/lib/auth/tokens';
import type { Db } from '@/lib/db/client';
import { adminTokens, consoleSessions, organizations, orgTokens } from '@/lib/db/schema';

/*
 * Console sessions (design §11). Signing in exchanges an org token or an admin token for a session:
 * the cookie carries 32 random bytes, the database only their SHA-256, so a copy of the database
 * opens no session. A session ends when signed out, after 12 idle hours (each use slides it, written
 * at most once a minute), 7 days after it began, or as soon as the token it was made with is revoked.
 * Sessions live in the database, so they survive restarts and every instance on PostgreSQL sees them.
 */
export const SESSION_COOKIE = 'triad_session';
export const IDLE_MS = 12 * 3_600_000;
export const ABSOLUTE_MS = 7 * 86_400_000;
/** How stale `last_seen_at` may get before a use writes it again. */
const TOUCH_MS = 60_000;

export type Session = {
  id: string;
  role: 'org' | 'admin';
  /** The organization of an org session. */
  org: Organization | null;
  /** The token the session was made with (its id). */
  tokenId: string;
  /** The organization is suspended (its session is then refused with 403). */
  suspended: boolean;
  createdAt: Date;
  expiresAt: Date;
  /** When it ends if unused: 12 h after its last use, never past `expiresAt`. */
  idleUntil: Date;
  /** The CSRF token bound to this session (header `X-CSRF-Token`). */
  csrfToken: string;
};

/** Which credential a sign-in token is, or null when no active one matches. */
export async function findSignInCredential(
  db: Db,
  token: string,
): Promise<{ role: 'org'; org: CredentialOrg } | { role: 'admin'; tokenId: string } | null> {
  if (token.startsWith(TOKEN_PREFIX.adminToken)) {
    const admin = await findAdminToken(db, token);
    return admin ? { role: 'admin', tokenId: admin.id } : null;
  }
  const org = await findOrgByToken(db, token);
  return org ? { role: 'org', org } : null;
}

/** Starts a session; returns the cookie's secret (shown to the browser only) and the session. */
export async function startSession(
  db: Db,
  who: { role: 'org'; org: CredentialOrg } | { role: 'admin'; tokenId: string },
  address: string | null,
  now = Date.now(),
): Promise<{ secret: string; session: Session }> {
  const secret = randomBytes(32).toString('base64url');
  const id = randomUUID();
  const expiresAt = new Date(now + ABSOLUTE_MS);
  await db.insert(consoleSessions).values({
    id,
    secretHash: hashToken(secret),
    role: who.role,
    orgId: who.role === 'org' ? who.org.id : null,
    orgTokenId: who.role === 'org' ? who.org.tokenId : null,
    adminTokenId: who.role === 'admin' ? who.tokenId : null,
    address: address?.slice(0, 64) ?? null,
    createdAt: new Date(now),
    lastSeenAt: new Date(now),
    expiresAt,
  });
  const tokenId = who.role === 'org' ? who.org.tokenId : who.tokenId;
  const org = who.role === 'org' ? { id: who.org.id, name: who.org.name } : null;
  return {
    secret,
    session: {
      id,
      role: who.role,
      org,
      tokenId,
      suspended: false,
      createdAt: new Date(now),
      expiresAt,
      idleUntil: idleUntil(now, expiresAt),
      csrfToken: csrfToken(secret),
    },
  };
}

/**
 * The live session a cookie's secret opens, or null: unknown, signed out, idle past 12 h, past its 7
 * days, or made with a token revoked since. A use slides the idle expiry.
 */
export async function findSession(db: Db, secret: string, now = Date.now()): Promise<Session | null> {
  if (!secret || secret.length > 200) return null;
  const [row] = await db
    .select({
      id: consoleSessions.id,
      secretHash: consoleSessions.secretHash,
      role: consoleSessions.role,
      orgId: consoleSessions.orgId,
      orgName: organizations.name,
      suspendedAt: organizations.suspendedAt,
      orgTokenId: consoleSessions.orgTokenId,
      adminTokenId: consoleSessions.adminTokenId,
      createdAt: consoleSessions.createdAt,
      lastSeenAt: consoleSessions.lastSeenAt,
      expiresAt: consoleSessions.expiresAt,
    })
    .from(consoleSessions)
    .leftJoin(organizations, eq(organizations.id, consoleSessions.orgId))
    .leftJoin(orgTokens, eq(orgTokens.id, consoleSessions.orgTokenId))
    .leftJoin(adminTokens, eq(adminTokens.id, consoleSessions.adminTokenId))
    .where(
      and(
        eq(consoleSessions.secretHash, hashToken(secret)),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, new Date(now)),
        gt(consoleSessions.lastSeenAt, new Date(now - IDLE_MS)),
        // The token it was made with is still active.
        sql`(case when ${consoleSessions.role} = 'org' then ${orgTokens.revokedAt} is null and ${orgTokens.id} is not null
                  else ${adminTokens.revokedAt} is null and ${adminTokens.id} is not null end)`,
      ),
    )
    .limit(1);
  if (!row || !tokenMatches(secret, row.secretHash)) return null;
  if (now - row.lastSeenAt.getTime() > TOUCH_MS) {
    await db
      .update(consoleSessions)
      .set({ lastSeenAt: new Date(now) })
      .where(eq(consoleSessions.id, row.id));
  }
  const org = row.role === 'org' && row.orgId ? { id: row.orgId, name: row.orgName ?? '' } : null;
  return {
    id: row.id,
    role: row.role,
    org,
    tokenId: (row.role === 'org' ? row.orgTokenId : row.adminTokenId) ?? '',
    suspended: row.suspendedAt !== null,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    idleUntil: idleUntil(now, row.expiresAt),
    csrfToken: csrfToken(secret),
  };
}

const idleUntil = (lastUse: number, expiresAt: Date) => new Date(Math.min(lastUse + IDLE_MS, expiresAt.getTime()));

/** Ends one session. */
export async function endSession(db: Db, id: string): Promise<void> {
  await db
    .update(consoleSessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(consoleSessions.id, id), isNull(consoleSessions.revokedAt)));
}

/** "Sign out everywhere": every live session of the organization, or every session made with the admin token. */
export async function endSessionsLike(db: Db, session: Pick<Session, 'role' | 'org' | 'tokenId'>): Promise<number> {
  const which = session.role === 'org' ? eq(consoleSessions.orgId, session.org!.id) : eq(consoleSessions.adminTokenId, session.tokenId);
  const rows = await db
    .update(consoleSessions)
    .set({ revokedAt: new Date() })
    .where(and(which, isNull(consoleSessions.revokedAt)))
    .returning({ id: consoleSessions.id });
  return rows.length;
}

/**
 * The CSRF token of a session: derived from the cookie's secret (a SHA-256 under its own label), so it
 * is bound to the session, needs no storage, and cannot be made without the cookie, which scripts of
 * other sites cannot read.
 */
export function csrfToken(secret: string): string {
  return createHash('sha256').update(`triad-csrf\0${secret}`, 'utf8').digest('base64url');
}

export function csrfMatches(secret: string, given: string | null): boolean {
  return !!given && safeEqual(given, csrfToken(secret));
}

/** The session secret of a Cookie header, or null. */
export function sessionSecret(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** The Set-Cookie header of a session (or, with `null`, the one that removes it). */
export function sessionCookie(
  secret: string | null,
  { secure, maxAgeS = ABSOLUTE_MS / 1000 }: { secure: boolean; maxAgeS?: number },
): string {
  const attrs = ['Path=/', 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  return secret === null
    ? [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attrs].join('; ')
    : [`${SESSION_COOKIE}=${secret}`, `Max-Age=${Math.floor(maxAgeS)}`, ...attrs].join('; ');
}

/**
 * Bounded growth: removes sessions that ended (signed out, idle past 12 h or past their 7 days) more
 * than a day ago. Their audit entries name them by id and stay.
 */
export async function purgeEndedSessions(db: Db, now = Date.now()): Promise<number> {
  const dayAgo = new Date(now - 86_400_000);
  const rows = await db
    .delete(consoleSessions)
    .where(
      sql`${consoleSessions.revokedAt} < ${dayAgo.toISOString()}::timestamptz
        or ${consoleSessions.expiresAt} < ${dayAgo.toISOString()}::timestamptz
        or ${consoleSessions.lastSeenAt} < ${new Date(now - IDLE_MS - 86_400_000).toISOString()}::timestamptz`,
    )
    .returning({ id: consoleSessions.id });
  return rows.length;
}
