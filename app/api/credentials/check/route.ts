import { checkCredentials, credentialsCheckSchema } from '@/lib/auth/check';
import { json, route } from '@/lib/http/route';

/** Tells the dashboard's credentials panel which of the credentials it holds are valid. */
export const POST = route(
  {
    auth: 'none',
    body: credentialsCheckSchema,
    doc: {
      summary: 'Which of the given credentials are valid',
      tag: 'Operations',
      beyond: true,
      replies: { 200: { description: '{data: {org_token?, api_key?, partner_secret?}}' } },
      errors: [400, 413, 429],
    },
  },
  async ({ db, body }) => json({ data: await checkCredentials(db, body) }),
);
