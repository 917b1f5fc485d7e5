import { checkCredentials, credentialsCheckSchema } from '@/lib/auth/check';
import { readJsonBody } from '@/lib/http/body';
import { linkRoute } from '@/lib/http/link-route';
import { parseWith } from '@/lib/http/validation';

/** Tells the dashboard's credentials panel which of the credentials it holds are valid. */
export const POST = linkRoute(
  async ({ request, db }) => {
    const input = parseWith(credentialsCheckSchema, await readJsonBody(request));
    return Response.json({ data: await checkCredentials(db, input) }, { headers: { 'Cache-Control': 'no-store' } });
  },
  { perAddress: true },
);
