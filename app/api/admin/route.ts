import { readAdminSecret } from '@/lib/admin/admin-secret';
import { AdminError, adminCommandSchema, runAdminCommand } from '@/lib/admin/commands';
import { safeEqual, bearerToken } from '@/lib/auth/tokens';
import { config } from '@/lib/config';
import { LinkError, unauthorized } from '@/lib/errors/link';
import { readJsonBody } from '@/lib/http/body';
import { linkRoute } from '@/lib/http/link-route';
import { isLoopbackPeer, requireLocalHost } from '@/lib/http/peer';
import { parseWith } from '@/lib/http/validation';

/**
 * The admin CLI's way into a running server (which holds the embedded database).
 * Only from this machine, with the secret from the data directory's `admin.secret` (mode 0600).
 */
export const POST = linkRoute(async ({ request, db }) => {
  requireLocalHost(request);
  const expected = readAdminSecret(config().dataDir);
  const given = bearerToken(request.headers.get('authorization'));
  if (!isLoopbackPeer(request) || !expected || !given || !safeEqual(given, expected)) {
    throw unauthorized('admin commands are accepted from this machine only, with the local admin secret');
  }
  const command = parseWith(adminCommandSchema, await readJsonBody(request));
  try {
    return Response.json({ data: await runAdminCommand(db, command) });
  } catch (e) {
    if (e instanceof AdminError) throw new LinkError(400, 'INVALID_PARAMETERS', e.message);
    throw e;
  }
});
