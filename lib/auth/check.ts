import { z } from 'zod';
import type { Db } from '@/lib/db/client';
import { findApiKey, findOrgByToken, findPartnerBySecret, getOrganization } from './credentials';

export const credentialsCheckSchema = z.object({
  org_token: z.string().max(500).optional(),
  api_key: z.string().max(500).optional(),
  partner_secret: z.string().max(500).optional(),
});

type Verdict = { valid: boolean; organization?: string };

/**
 * Which of the given credentials work. A partner secret is checked within the org token's
 * organization only, as the statistics endpoints check it; names are returned, ids are not.
 */
export async function checkCredentials(db: Db, input: z.infer<typeof credentialsCheckSchema>) {
  const out: { org_token?: Verdict; api_key?: Verdict; partner_secret?: Verdict & { partner?: string } } = {};
  const org = input.org_token ? await findOrgByToken(db, input.org_token) : null;
  if (input.org_token) out.org_token = { valid: !!org, organization: org?.name };
  if (input.api_key) {
    const key = await findApiKey(db, input.api_key);
    out.api_key = { valid: !!key, organization: key ? (await getOrganization(db, { orgId: key.orgId })).name : undefined };
  }
  if (input.partner_secret) {
    const partner = org ? await findPartnerBySecret(db, { orgId: org.id, secret: input.partner_secret }) : null;
    out.partner_secret = { valid: !!partner, partner: partner?.name };
  }
  return out;
}
