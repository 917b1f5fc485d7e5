import { endSession, sessionCookie, sessionSecret } from '@/lib/console/sessions';
import { sessionSchema, signInBody } from '@/lib/console/schema';
import { sessionView, signIn } from '@/lib/console/sign-in';
import { audit } from '@/lib/console/audit';
import { forbidden } from '@/lib/errors/link';
import { dataReply, json, route } from '@/lib/http/route';
import { ownOrigin, viaHttps } from '@/lib/http/peer';

/** Sign in to the console (design §11): an org token or an admin token → a session cookie, `{data: session}`. */
export const POST = route(
  {
    auth: 'none',
    body: signInBody,
    doc: {
      summary: 'Sign in with an org token or an admin token: sets the session cookie (triad_session)',
      tag: 'Console',
      beyond: true,
      replies: {
        200: { schema: dataReply(sessionSchema), description: 'The new session; Set-Cookie: triad_session (HttpOnly, SameSite=Lax)' },
      },
      errors: [400, 401, 403, 429],
    },
  },
  async ({ db, body, request, address }) => {
    // A page of another site must not sign a browser in under someone else's token (login CSRF).
    const origin = request.headers.get('origin');
    const own = ownOrigin(request);
    if (origin && origin.toLowerCase() !== own.toLowerCase())
      throw forbidden(`sign-in is accepted from this server's own pages only (${own})`);
    const { secret, session } = await signIn(db, body.token, address);
    return json({ data: sessionView(session) }, 200, { 'Set-Cookie': sessionCookie(secret, { secure: viaHttps(request) }) });
  },
);

/** The current session: who is signed in, its expiry and its CSRF token; `{data: null}` when nobody is (an ended session's cookie is removed). */
export const GET = route(
  {
    auth: 'sessionIfAny',
    doc: {
      summary: 'The current session: role, organization, expiry, CSRF token; null when nobody is signed in',
      tag: 'Console',
      beyond: true,
      replies: { 200: { schema: dataReply(sessionSchema.nullable()), description: 'The session, or null when signed out' } },
      errors: [403, 429],
    },
  },
  async ({ session, request }) => {
    if (session) return json({ data: sessionView(session) });
    const ended = sessionSecret(request.headers.get('cookie')) !== null;
    return json({ data: null }, 200, ended ? { 'Set-Cookie': sessionCookie(null, { secure: viaHttps(request) }) } : {});
  },
);

/** Sign out: ends this session and removes the cookie. */
export const DELETE = route(
  {
    auth: 'session',
    doc: {
      summary: 'Sign out (ends this session, removes the cookie)',
      tag: 'Console',
      beyond: true,
      replies: { 200: { description: '{data: {signed_out: true}}' } },
      errors: [401, 403],
    },
  },
  async ({ db, session, actor, address, request }) => {
    await endSession(db, session.id);
    await audit(db, { orgId: session.org?.id ?? null, actor, action: 'session.sign_out', object: `session:${session.id}`, address });
    return json({ data: { signed_out: true } }, 200, { 'Set-Cookie': sessionCookie(null, { secure: viaHttps(request) }) });
  },
);
