import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrganization } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { flushUsage, recordUsage, type UsageRecord, usageByModel } from './usage';

describe.each(engines)('chat usage records (%s)', (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ database: d, cleanup } = await open());
  });
  afterAll(() => cleanup());

  const newKey = async () => {
    const org = await createOrganization(d.db, { name: 'Usage' });
    return (await createApiKey(d.db, { orgId: org.id })).id;
  };
  const record = (apiKeyId: string, over: Partial<UsageRecord> = {}): UsageRecord => ({
    apiKeyId,
    model: 'm',
    promptTokens: 10,
    completionTokens: 2,
    cost: '0',
    stream: false,
    outcome: 'stop',
    platform: null,
    ...over,
  });
  const stored = async (key: string) =>
    (
      await d.db.execute(
        sql`select model, requests, prompt_tokens, completion_tokens, stream, outcome, platform from chat_usage where api_key_id = ${key} order by id`,
      )
    ).rows;

  it('totals per model; completions alike in one batch share a row that counts them', async () => {
    const key = await newKey();
    const other = await newKey();
    recordUsage(d.db, record(key, { model: 'b', platform: 'macOS', outcome: 'length' }));
    recordUsage(d.db, record(key, { model: 'a', promptTokens: 5 }));
    recordUsage(d.db, record(key, { model: 'a', promptTokens: 7, completionTokens: 3 }));
    recordUsage(d.db, record(key, { model: 'a', stream: true, outcome: 'aborted' }));
    recordUsage(d.db, record(other, { model: 'a' }));
    expect(await usageByModel(d.db, key)).toEqual([
      { model: 'a', requests: 3, prompt_tokens: 22, completion_tokens: 7 },
      { model: 'b', requests: 1, prompt_tokens: 10, completion_tokens: 2 },
    ]);
    expect(await stored(key)).toEqual([
      { model: 'b', requests: 1, prompt_tokens: 10, completion_tokens: 2, stream: false, outcome: 'length', platform: 'macOS' },
      { model: 'a', requests: 2, prompt_tokens: 12, completion_tokens: 5, stream: false, outcome: 'stop', platform: null },
      { model: 'a', requests: 1, prompt_tokens: 10, completion_tokens: 2, stream: true, outcome: 'aborted', platform: null },
    ]);
    // The next batch makes rows of its own.
    recordUsage(d.db, record(key, { model: 'a', promptTokens: 5 }));
    expect((await usageByModel(d.db, key))[0]).toEqual({ model: 'a', requests: 4, prompt_tokens: 27, completion_tokens: 9 });
    expect(await stored(key)).toHaveLength(4);
    expect(await usageByModel(d.db, other)).toEqual([{ model: 'a', requests: 1, prompt_tokens: 10, completion_tokens: 2 }]);
  });

  it('a large batch is stored whole, and the server gets turns while it is written', async () => {
    const key = await newKey();
    for (let i = 0; i < 175; i++) recordUsage(d.db, record(key, { platform: `p${i}`, promptTokens: i }));
    let turns = 0;
    let writing = true;
    const turn = () => {
      if (!writing) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    await flushUsage();
    writing = false;
    expect(turns).toBeGreaterThanOrEqual(3); // 175 rows, 50 a statement: three turns between four statements
    expect(await usageByModel(d.db, key)).toEqual([{ model: 'm', requests: 175, prompt_tokens: (174 * 175) / 2, completion_tokens: 350 }]);
    expect(await stored(key)).toHaveLength(175);
  });

  it('a flush waits for one already under way, so what was recorded is there when it resolves', async () => {
    const key = await newKey();
    for (let i = 0; i < 120; i++) recordUsage(d.db, record(key, { platform: `p${i}` }));
    const first = flushUsage(); // under way
    recordUsage(d.db, record(key));
    await flushUsage();
    const count = await d.db.execute(sql`select sum(requests)::int as n from chat_usage where api_key_id = ${key}`);
    expect(count.rows[0]).toEqual({ n: 121 });
    await first;
  });
});
