import { and, desc, eq, isNull } from 'drizzle-orm';
import { type ApiKeyPrincipal, createApiKey } from '@/lib/auth/credentials';
import type { Db } from '@/lib/db/client';
import { apiKeys } from '@/lib/db/schema';

/**
 * The playground's API key: a signed-in organization chats without pasting a key, and what it uses is
 * counted on a key of its own, listed with the others (label below) and revocable like them. Revoked,
 * it is replaced by a new one at the next playground message.
 */
export const PLAYGROUND_LABEL = 'Console playground';

export async function playgroundKey(db: Db, orgId: string): Promise<ApiKeyPrincipal> {
  const find = () =>
    db.query.apiKeys.findFirst({
      where: and(eq(apiKeys.orgId, orgId), eq(apiKeys.label, PLAYGROUND_LABEL), isNull(apiKeys.revokedAt)),
      orderBy: desc(apiKeys.createdAt),
    });
  let row = await find();
  if (!row) {
    await createApiKey(db, { orgId, label: PLAYGROUND_LABEL });
    row = await find();
  }
  return { id: row!.id, orgId, rpm: row!.rpm, prefix: row!.prefix };
}
