import { AdminError, adminCommandSchema, runAdminCommand } from '@/lib/admin/commands';
import { database } from '@/lib/db/client';
import { invalidParameters } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/**
 * The admin CLI's way into a running server (which holds the embedded database).
 * Only from this machine, with the secret from the data directory's `admin.secret` (mode 0600).
 */
export const POST = route(
  {
    auth: 'admin',
    body: adminCommandSchema,
    doc: {
      summary: "The admin CLI's commands through the running server (this machine only, with the data directory's admin secret)",
      tag: 'Operations',
      beyond: true,
      replies: { 200: { description: "{data: <the command's result>}" } },
      errors: [400, 401, 403, 413],
    },
  },
  async ({ db, body }) => {
    try {
      return json({ data: await runAdminCommand(db, body, await database()) });
    } catch (e) {
      if (e instanceof AdminError) throw invalidParameters(e.message);
      throw e;
    }
  },
);
