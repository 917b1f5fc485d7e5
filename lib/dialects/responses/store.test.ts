import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { freshPglite } from '@/lib/db/test-engines';
import type { Item } from './schema';
import { getResponse, historyOf, itemsById, purgeExpiredResponses, saveResponse } from './store';

let d: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ database: d, cleanup } = await freshPglite());
});
afterAll(() => cleanup());

const say = (id: string, role: 'user' | 'assistant', text: string) => ({ type: 'message', id, role, content: text }) as Item;

describe('stored responses', () => {
  it('replay a chain of previous_response_id oldest first, for their organization only; expired ones are gone and purged', async () => {
    const org = await createOrganization(d.db, { name: 'Chain' });
    const other = await createOrganization(d.db, { name: 'Other' });
    const save = (id: string, prev: string | null, input: Item[], output: Item[], ttlDays = 30) =>
      saveResponse(d.db, { id, orgId: org.id, apiKeyId: 'k', previousResponseId: prev, body: { id }, input, output, ttlDays });
    await save('resp_1', null, [say('m1', 'user', 'one')], [say('m2', 'assistant', 'two')]);
    await save('resp_2', 'resp_1', [say('m3', 'user', 'three')], [say('m4', 'assistant', 'four')]);
    await save('resp_3', 'resp_2', [say('m5', 'user', 'five')], []);

    expect((await historyOf(d.db, org.id, 'resp_3'))!.map((i) => i.id)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect((await historyOf(d.db, org.id, 'resp_1'))!.map((i) => i.id)).toEqual(['m1', 'm2']);
    expect(await historyOf(d.db, other.id, 'resp_3')).toBeNull();
    expect(await getResponse(d.db, other.id, 'resp_1')).toBeNull();
    expect([...(await itemsById(d.db, org.id, ['m4', 'nope'])).keys()]).toEqual(['m4']);
    expect((await itemsById(d.db, other.id, ['m4'])).size).toBe(0);

    // Expired: not found, and purged with its items.
    await d.db.execute(sql`update responses set expires_at = now() - interval '1 second' where id = 'resp_1'`);
    expect(await getResponse(d.db, org.id, 'resp_1')).toBeNull();
    expect(await historyOf(d.db, org.id, 'resp_1')).toBeNull();
    expect(await purgeExpiredResponses(d.db)).toBe(1);
    expect(
      (await d.db.execute<{ n: number }>(sql`select count(*)::int as n from response_items where response_id = 'resp_1'`)).rows[0]!.n,
    ).toBe(0);
    // The chain after it replays what is left.
    expect((await historyOf(d.db, org.id, 'resp_3'))!.map((i) => i.id)).toEqual(['m3', 'm4', 'm5']);
  });

  it('hold what a model server wrote with a NUL or half a surrogate pair in it (jsonb cannot): U+FFFD in its place', async () => {
    const org = await createOrganization(d.db, { name: 'Nul' });
    const output = [
      say('n2', 'assistant', 'a\u0000b'),
      { type: 'function_call', id: 'fc_1', call_id: '\ud800', name: 'x\u0000', arguments: '{}' } as Item,
    ];
    await saveResponse(d.db, {
      id: 'resp_nul',
      orgId: org.id,
      apiKeyId: 'k',
      previousResponseId: null,
      body: { id: 'resp_nul', output, 'k\u0000': 1 },
      input: [say('n1', 'user', 'hi')],
      output,
      ttlDays: 30,
    });
    expect(await getResponse(d.db, org.id, 'resp_nul')).toMatchObject({
      output: [{ content: 'a\ufffdb' }, { name: 'x\ufffd', call_id: '\ufffd' }],
      'k\ufffd': 1,
    });
    expect((await historyOf(d.db, org.id, 'resp_nul'))!.map((i) => (i as { content?: string }).content)).toEqual([
      'hi',
      'a\ufffdb',
      undefined,
    ]);
  });
});
