import { audit } from '@/lib/console/audit';
import { createOrgApiKey, listApiKeys } from '@/lib/console/org';
import { apiKeyCreateBody } from '@/lib/console/schema';
import { json, route } from '@/lib/http/route';

/** The organization's API keys: name, prefix, rate, created, last used, completions in the last 24 h, revoked. */
export const GET = route({ auth: 'orgToken' }, async ({ db, org }) => json({ data: await listApiKeys(db, org.id) }));

/** A new API key; `key` is shown in this reply only. */
export const POST = route({ auth: 'orgToken', body: apiKeyCreateBody }, async ({ db, org, body, actor, address }) => {
  const created = await createOrgApiKey(db, org.id, body);
  await audit(db, {
    orgId: org.id,
    actor,
    action: 'api_key.create',
    object: `api_key:${created.id}`,
    detail: { name: body.name, rpm: body.rpm ?? null },
    address,
  });
  return json({ data: created }, 201);
});
