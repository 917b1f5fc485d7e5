import type { Db } from '@/lib/db/client';
import { SUSPENDED } from '@/lib/auth/credentials';
import { forbidden, tooManyRequests, unauthorized } from '@/lib/errors/link';
import { lookUpCredential } from '@/lib/auth/unknown-credentials';
import { audit } from './audit';
import { findSignInCredential, type Session, startSession } from './sessions';

/** What the console reads of its session (never the cookie's secret). */
export function sessionView(session: Session) {
  return {
    id: session.id,
    role: session.role,
    organization: session.org,
    csrf_token: session.csrfToken,
    created_at: session.createdAt.toISOString(),
    expires_at: session.expiresAt.toISOString(),
    idle_expires_at: session.idleUntil.toISOString(),
  };
}

/** Exchanges an org token or an admin token for a session (unknown tokens are counted per address); 401 when it opens none. */
export async function signIn(db: Db, token: string, address: string) {
  const who = await lookUpCredential(
    address,
    (s, h) => tooManyRequests(s, h, 'unknown tokens from this address'),
    () => findSignInCredential(db, token),
  );
  if (!who) throw unauthorized('the token is not an active org token or admin token of this server');
  if (who.role === 'org' && who.org.suspended) throw forbidden(SUSPENDED);
  const { secret, session } = await startSession(db, who, address);
  await audit(db, {
    orgId: session.org?.id ?? null,
    actor: `session:${session.id}`,
    action: 'session.sign_in',
    object: `${session.role === 'org' ? 'org_token' : 'admin_token'}:${session.tokenId}`,
    address,
  });
  return { secret, session };
}
