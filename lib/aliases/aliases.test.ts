import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { freshPglite } from '@/lib/db/test-engines';
import { createAlias, findAliasById, listAliases, purgeExpiredAliases } from './aliases';

let d: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ database: d, cleanup } = await freshPglite());
});
afterAll(() => cleanup());
const now = () => Math.floor(Date.now() / 1000);

describe('aliases storage', () => {
  it('encrypts passcode, jwt_secret and stream_key at rest and decrypts them for the owner', async () => {
    const org = await createOrganization(d.db, { name: 'A' });
    const input = {
      type: 'live' as const,
      passcode: 'pass-1234',
      jwt_secret: 'j'.repeat(40),
      stream_key: 'stream-xyz',
      expired_at: now() + 60,
    };
    const alias = await createAlias(d.db, { orgId: org.id, input });
    const raw = await d.db.execute(sql`select * from aliases where id = ${alias.id}`);
    const text = JSON.stringify(raw.rows);
    for (const secret of [input.passcode, input.jwt_secret, input.stream_key]) expect(text).not.toContain(secret);
    expect(await findAliasById(d.db, alias.id)).toMatchObject({
      passcode: 'pass-1234',
      jwtSecret: input.jwt_secret,
      streamKey: 'stream-xyz',
    });
  });

  it('purges only aliases expired longer ago than the retention', async () => {
    const org = await createOrganization(d.db, { name: 'B' });
    const a = await createAlias(d.db, { orgId: org.id, input: { type: 'live', expired_at: now() + 10 } });
    const b = await createAlias(d.db, { orgId: org.id, input: { type: 'live', expired_at: now() + 10 } });
    // 40 days later: a expired 40 days ago, b is extended to the future in the meantime.
    await d.db.execute(sql`update aliases set expired_at = ${now() + 10_000_000} where id = ${b.id}`);
    const later = now() + 40 * 86_400;
    expect(await purgeExpiredAliases(d.db, { retentionDays: 30, now: later })).toBeGreaterThanOrEqual(1);
    expect(await findAliasById(d.db, a.id)).toBeNull();
    expect(await findAliasById(d.db, b.id)).not.toBeNull();
    const { entries } = await listAliases(d.db, { orgId: org.id });
    expect(entries.map((e) => e.id)).toEqual([b.id]);
  });
});
