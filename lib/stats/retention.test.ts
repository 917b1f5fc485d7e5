import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrganization, createPartner } from '@/lib/auth/credentials';
import { rollUpUsage } from '@/lib/chat/usage';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { BadInputError } from '@/lib/core/input';
import { ingestEvents } from './ingest';
import { registerNode } from './nodes';
import { uptimes } from './queries';
import { deleteOldEvents } from './retention';
import type { NodeEventInput } from './schema';
import { DAY_MS, HOUR_MS } from './sessions';

const TIMEOUT = 120_000;
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const DAYS = 35;
const CUTOFF = NOW - DAYS * DAY_MS;

describe.each(engines)('retention (%s)', (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ database: d, cleanup } = await open());
  });
  afterAll(() => cleanup());

  const ev = (node: string, type: NodeEventInput['type'], at: number, event_id?: string): NodeEventInput => ({
    partner_node_id: node,
    type,
    at,
    event_id,
  });

  it('deletes events older than the window except those a replay may need; totals unchanged; older events refused; a late event still replays', async () => {
    const org = await createOrganization(d.db, { name: 'r' });
    const partner = await createPartner(d.db, { orgId: org.id, name: 'p' });
    for (const n of ['closed', 'long', 'recent']) await registerNode(d.db, { partnerId: partner.id, externalId: n });
    const ingest = (events: NodeEventInput[], retentionDays?: number) =>
      ingestEvents(d.db, { partnerId: partner.id, events, heartbeatTimeoutMs: TIMEOUT, retentionDays, now: NOW });
    await ingest([
      // A session long over before the window: its events can go.
      ev('closed', 'connect', CUTOFF - 10 * DAY_MS, 'c1'),
      ev('closed', 'disconnect', CUTOFF - 9 * DAY_MS, 'c2'),
      // A session opened before the window and still open: a late event could fall in it, so its events stay.
      ev('long', 'connect', CUTOFF - 5 * DAY_MS, 'l1'),
      ev('long', 'heartbeat', CUTOFF - 4 * DAY_MS, 'l2'),
      // Within the window.
      ev('recent', 'connect', NOW - DAY_MS, 'r1'),
      ev('recent', 'disconnect', NOW - DAY_MS + HOUR_MS, 'r2'),
    ]);
    const ctx = { partnerId: partner.id, now: NOW, heartbeatTimeoutMs: TIMEOUT };
    const before = await uptimes(d.db, ctx, { partnerNodeIds: ['closed', 'long', 'recent'], range: null });

    expect(await deleteOldEvents(d.db, { retentionDays: DAYS, heartbeatTimeoutMs: TIMEOUT, now: NOW, batch: 1 })).toBe(2);
    const left = (await d.db.execute<{ event_id: string }>(sql`select event_id from node_events order by event_id`)).rows.map(
      (r) => r.event_id,
    );
    expect(left.filter((id) => /^[clr]\d$/.test(id))).toEqual(['l1', 'l2', 'r1', 'r2']);
    expect(await uptimes(d.db, ctx, { partnerNodeIds: ['closed', 'long', 'recent'], range: null })).toEqual(before);
    expect(await deleteOldEvents(d.db, { retentionDays: DAYS, heartbeatTimeoutMs: TIMEOUT, now: NOW })).toBe(0);

    // An event older than the window is refused, naming the window (and the repeat of a deleted one too).
    await expect(ingest([ev('closed', 'connect', CUTOFF - 10 * DAY_MS, 'c1')], DAYS)).rejects.toThrow(BadInputError);
    await expect(ingest([ev('closed', 'connect', CUTOFF - 1, 'c9')], DAYS)).rejects.toThrow(/retention window of 35 days/);
    // A late disconnect inside the window, in the long session: replayed from its (kept) connect.
    expect(await ingest([ev('long', 'disconnect', NOW - 2 * DAY_MS, 'l3')], DAYS)).toEqual({ accepted: 1 });
    const [long] = await uptimes(d.db, ctx, { partnerNodeIds: ['long'], range: null });
    expect(long!.uptime).toBe(NOW - 2 * DAY_MS - (CUTOFF - 5 * DAY_MS));
  });

  it('rolls usage older than the window up per kind and hour; totals unchanged; twice is once', async () => {
    const org = await createOrganization(d.db, { name: 'u' });
    const key = (await createApiKey(d.db, { orgId: org.id })).id;
    const old = new Date(NOW - 10 * DAY_MS + 5 * 60_000);
    const insert = (at: Date, model: string, requests: number, outcome = 'stop') =>
      d.db
        .execute(sql`insert into chat_usage (api_key_id, model, requests, prompt_tokens, completion_tokens, stream, outcome, platform, created_at)
        values (${key}, ${model}, ${requests}, ${requests * 10}, ${requests * 2}, false, ${outcome}, null, ${at})`);
    for (let i = 0; i < 5; i++) await insert(new Date(old.getTime() + i * 1000), 'a', 1 + i);
    await insert(new Date(old.getTime() + 9000), 'a', 7, 'error');
    await insert(new Date(old.getTime() + 9000), 'b', 3);
    for (let i = 0; i < 3; i++) await insert(new Date(NOW - HOUR_MS + i * 1000), 'a', 1); // recent: left alone
    const totals = async () =>
      (
        await d.db.execute<{ rows: number; requests: number; prompt: number }>(
          sql`select count(*)::int as rows, sum(requests)::int as requests, sum(prompt_tokens)::int as prompt from chat_usage where api_key_id = ${key}`,
        )
      ).rows[0]!;
    expect(await totals()).toEqual({ rows: 10, requests: 1 + 2 + 3 + 4 + 5 + 7 + 3 + 3, prompt: 280 });
    expect(await rollUpUsage(d.db, { olderThanDays: 7, now: NOW })).toBe(1);
    expect(await totals()).toEqual({ rows: 6, requests: 28, prompt: 280 });
    expect(await rollUpUsage(d.db, { olderThanDays: 7, now: NOW })).toBe(0);
    const [rolled] = (
      await d.db.execute<{ requests: number; at: string }>(
        sql`select requests, extract(epoch from created_at)::bigint * 1000 as at from chat_usage where api_key_id = ${key} and model = 'a' and outcome = 'stop' and created_at < ${new Date(NOW - DAY_MS)}`,
      )
    ).rows;
    expect(rolled).toEqual({ requests: 15, at: expect.anything() });
    expect(Number(rolled!.at) % HOUR_MS).toBe(0);
  });
});
