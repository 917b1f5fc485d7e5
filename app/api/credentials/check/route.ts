import { checkCredentials, credentialsCheckSchema } from '@/lib/auth/check';
import { json, route } from '@/lib/http/route';

/** Tells the dashboard's credentials panel which of the credentials it holds are valid. */
export const POST = route({ auth: 'none', body: credentialsCheckSchema }, async ({ db, body }) =>
  json({ data: await checkCredentials(db, body) }),
);
