import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, revokeApiKey } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { apiKeys } from '@/lib/db/schema';
import { engines } from '@/lib/db/test-engines';
import { PLAYGROUND_LABEL, playgroundKey } from './playground';

describe.each(engines)("the playground's key on %s", (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ database: d, cleanup } = await open()));
  afterAll(() => cleanup());

  const keysOf = (orgId: string) =>
    d.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.label, PLAYGROUND_LABEL)));

  it('is one key however many first messages arrive at once, and a new one once it is revoked', async () => {
    const org = await createOrganization(d.db, { name: 'Playground' });
    const first = await Promise.all(Array.from({ length: 8 }, () => playgroundKey(d.db, org.id)));
    expect(new Set(first.map((k) => k.id)).size).toBe(1);
    expect(await keysOf(org.id)).toHaveLength(1);

    await revokeApiKey(d.db, { id: first[0]!.id });
    const next = await Promise.all(Array.from({ length: 4 }, () => playgroundKey(d.db, org.id)));
    expect(new Set(next.map((k) => k.id)).size).toBe(1);
    expect(next[0]!.id).not.toBe(first[0]!.id);
    expect(await keysOf(org.id)).toHaveLength(2);
  });
});
