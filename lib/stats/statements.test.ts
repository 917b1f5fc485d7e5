import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createPartner } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { nodeServedHourly } from '@/lib/db/schema';
import { registerNode } from './nodes';
import { DAY_MS, HOUR_MS } from './sessions';
import { nodeStatement } from './statements';

/** Half past midnight, UTC: the first hour of a day, when a range's end rounded down to the hour is midnight. */
const NOW = Date.UTC(2026, 10, 27, 0, 30, 0);
const MIDNIGHT = Date.UTC(2026, 10, 27);

describe.each(engines)('statements (%s)', (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ database: d, cleanup } = await open());
  });
  afterAll(() => cleanup());

  it('a range ending in the hour under way covers it up to now: in the first hour of a day, today and what was earned in it', async () => {
    const org = await createOrganization(d.db, { name: 's' });
    const partner = await createPartner(d.db, { orgId: org.id, name: 'p' });
    const { node } = await registerNode(d.db, { partnerId: partner.id, externalId: 'gpu' });
    await d.db.insert(nodeServedHourly).values([
      { nodeId: node.id, hourStart: MIDNIGHT - DAY_MS, requests: 2, tokens: 20, usd: '0.5' },
      { nodeId: node.id, hourStart: MIDNIGHT, requests: 1, tokens: 10, usd: '0.25' }, // the hour under way
    ]);
    const ctx = { partnerId: partner.id, now: NOW, heartbeatTimeoutMs: 120_000 };
    // As the route hands it over: both bounds rounded down to the hour (the end to midnight).
    const upToNow = await nodeStatement(d.db, ctx, {
      partnerNodeId: 'gpu',
      bucket: 'day',
      range: { start: MIDNIGHT - 3 * DAY_MS, end: MIDNIGHT },
    });
    expect(upToNow.periods.map((p) => p.start)).toEqual([3, 2, 1, 0].map((n) => MIDNIGHT - n * DAY_MS));
    expect(upToNow.periods.at(-1)).toMatchObject({ requests: 1, usd_earned: '0.25' });
    // A range that ended before the hour under way keeps its end.
    const earlier = await nodeStatement(d.db, ctx, {
      partnerNodeId: 'gpu',
      bucket: 'day',
      range: { start: MIDNIGHT - 3 * DAY_MS, end: MIDNIGHT - HOUR_MS },
    });
    expect(earlier.periods.map((p) => p.start)).toEqual([3, 2, 1].map((n) => MIDNIGHT - n * DAY_MS));
    expect(earlier.periods.at(-1)).toMatchObject({ requests: 2, usd_earned: '0.5' });
  });
});
