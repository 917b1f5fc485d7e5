import { audit } from '@/lib/console/audit';
import { endSessionsLike, sessionCookie } from '@/lib/console/sessions';
import { json, route } from '@/lib/http/route';
import { viaHttps } from '@/lib/http/peer';

/** Sign out everywhere: every session of the organization (or of the admin token), this one included. */
export const POST = route(
  {
    auth: 'session',
    doc: {
      summary: 'Sign out everywhere: every session of the organization (or of the admin token)',
      tag: 'Console',
      beyond: true,
      replies: { 200: { description: '{data: {sessions_ended}}' } },
      errors: [401, 403],
    },
  },
  async ({ db, session, actor, address, request }) => {
    const ended = await endSessionsLike(db, session);
    await audit(db, { orgId: session.org?.id ?? null, actor, action: 'session.sign_out_everywhere', detail: { sessions: ended }, address });
    return json({ data: { sessions_ended: ended } }, 200, { 'Set-Cookie': sessionCookie(null, { secure: viaHttps(request) }) });
  },
);
