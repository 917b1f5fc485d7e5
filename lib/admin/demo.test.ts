import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodes, nodeServedHourly } from '@/lib/db/schema';
import { findOrgByToken, revokeOrgToken } from '@/lib/auth/credentials';
import type { Database } from '@/lib/db/client';
import { freshPglite } from '@/lib/db/test-engines';
import { listAliases } from '@/lib/aliases/aliases';
import { findApiKey } from '@/lib/auth/credentials';
import { usageSeries } from '@/lib/console/usage';
import { listRequests, REQUESTS_CURSOR } from '@/lib/observability/request-log';
import { decodeCursor } from '@/lib/core/cursor';
import { ensureDemo, isEmptyInstallation } from './demo';
import { DEMO_SERVERS } from './demo-servers';

let d: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ database: d, cleanup } = await freshPglite());
});
afterAll(() => cleanup());

describe('ensureDemo', () => {
  it('sets up once and returns the same credentials afterwards', async () => {
    expect(await isEmptyInstallation(d.db)).toBe(true);
    const first = await ensureDemo(d.db);
    expect(first.created).toBe(true);
    expect(await isEmptyInstallation(d.db)).toBe(false);
    const second = await ensureDemo(d.db);
    expect(second).toEqual({ created: false, credentials: first.credentials });
    expect(first.credentials.partner_node_ids).toHaveLength(40);
  });

  it('gives the demo organization one alias of each kind of access, once', async () => {
    const { credentials } = await ensureDemo(d.db);
    const org = (await findOrgByToken(d.db, credentials.org_token))!;
    const { entries } = await listAliases(d.db, { orgId: org.id });
    expect(entries).toHaveLength(3);
    const kind = (a: (typeof entries)[number]) => (a.jwtSecret ? 'jwt' : a.passcode ? 'passcode' : 'public');
    expect(entries.map(kind).sort()).toEqual(['jwt', 'passcode', 'public']);
    expect(entries.every((a) => a.expiredAt > Date.now() / 1000 + 80 * 86_400)).toBe(true);
    expect(entries.find((a) => a.jwtSecret)?.streamKey).toMatch(/^sk_/);
    await ensureDemo(d.db);
    expect((await listAliases(d.db, { orgId: org.id })).entries).toHaveLength(3);
  });

  it('gives the demo organization two weeks of usage history, per key and model, on keys of its own, once', async () => {
    const { credentials } = await ensureDemo(d.db);
    const org = (await findOrgByToken(d.db, credentials.org_token))!;
    const DAY = 86_400_000;
    const to = Date.now();
    const range = { orgId: org.id, from: to - 15 * DAY, to, bucket: 'day' as const };
    const byKey = await usageSeries(d.db, { ...range, groupBy: 'key' });
    const labels = [...new Set(byKey.map((p) => p.label.replace(/ \(.*$/, '')))].sort();
    expect(labels).toEqual(['Demo history · nightly batch', 'Demo history · support bot', 'Demo history · web app']);
    // The demo's own API key (the one a user is given) has no history of its own.
    const demoKey = (await findApiKey(d.db, credentials.api_key))!;
    expect(byKey.some((p) => p.group === demoKey.id)).toBe(false);
    const days = new Set(byKey.filter((p) => p.requests > 0).map((p) => p.bucket_start));
    expect(days.size).toBeGreaterThanOrEqual(14);
    for (const p of byKey.filter((p) => p.requests > 0)) {
      expect(p.prompt_tokens).toBeGreaterThan(p.requests);
      expect(p.latency_p50_ms).toBeGreaterThan(0);
      expect(p.latency_p95_ms!).toBeGreaterThanOrEqual(p.latency_p50_ms!);
    }
    expect(byKey.reduce((n, p) => n + p.errors, 0)).toBeGreaterThan(0);
    const byModel = await usageSeries(d.db, { ...range, groupBy: 'model' });
    expect([...new Set(byModel.map((p) => p.group))].sort()).toEqual(['triad-demo', 'triad-guide']);
    // What it spent: the demo model's tokens at its nodes' prices (between the cheapest's and the dearest's,
    // USD per 1 000 tokens), the built-in guide nothing.
    const perToken = DEMO_SERVERS.map((s) => Number(s.price) / 1000);
    for (const p of byModel.filter((p) => p.requests > p.errors)) {
      const tokens = p.prompt_tokens + p.completion_tokens;
      if (p.group === 'triad-guide') expect(Number(p.cost)).toBe(0);
      else {
        expect(Number(p.cost)).toBeGreaterThanOrEqual(tokens * Math.min(...perToken) - 1e-6);
        expect(Number(p.cost)).toBeLessThanOrEqual(tokens * Math.max(...perToken) + 1e-6);
      }
    }
    // Streams have a time to first token, shorter than the whole reply's.
    const streamed = byModel.find((p) => p.ttft_p50_ms !== null)!;
    expect(streamed.ttft_p50_ms!).toBeLessThan(streamed.latency_p50_ms!);
    // Set up once: a second call adds nothing.
    const total = byKey.reduce((n, p) => n + p.requests, 0);
    await ensureDemo(d.db);
    expect((await usageSeries(d.db, { ...range, groupBy: 'key' })).reduce((n, p) => n + p.requests, 0)).toBe(total);
  });

  it("puts each completion of that history in the request log, newest first (who served it, its status, figures, errors) and in its nodes' served figures", async () => {
    const { credentials } = await ensureDemo(d.db);
    const org = (await findOrgByToken(d.db, credentials.org_token))!;
    const to = Date.now();
    const from = to - 15 * 86_400_000;
    const usage = await usageSeries(d.db, { orgId: org.id, from, to, bucket: 'day', groupBy: 'key' });
    // Every page of the log, as the Requests page reads it.
    const entries: Awaited<ReturnType<typeof listRequests>>['entries'] = [];
    for (let after: number | undefined; ;) {
      const page = await listRequests(d.db, { orgId: org.id, startedAt: from, limit: 200, after });
      entries.push(...page.entries);
      if (!page.after) break;
      after = decodeCursor(REQUESTS_CURSOR, page.after);
    }
    // One entry for each request the usage counts, errors for its errors.
    expect(entries.length).toBe(usage.reduce((n, p) => n + p.requests, 0));
    expect(entries.filter((e) => e.error !== null).length).toBe(usage.reduce((n, p) => n + p.errors, 0));
    // What the usage says was spent is what the log's entries cost (exact decimals, here summed as numbers).
    const spent = usage.reduce((n, p) => n + Number(p.cost), 0);
    expect(spent).toBeGreaterThan(0);
    expect(entries.reduce((n, e) => n + e.cost, 0)).toBeCloseTo(spent, 6);
    // Newest first, over the two weeks.
    const times = entries.map((e) => Date.parse(e.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(times.at(-1)!).toBeLessThan(to - 13 * 86_400_000);
    for (const e of entries) {
      expect(e.endpoint).toBe('/api/v1/chat/completions');
      expect(e.request_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      if (e.error === null) {
        expect(e.status).toBe(200);
        expect(e.prompt_tokens).toBeGreaterThan(0);
        expect(e.latency_ms).toBeGreaterThan(0);
        // The demo model served by one of the demo's nodes at its price; the guide by itself, free.
        if (e.model === 'triad-demo') {
          expect(DEMO_SERVERS.map((s) => s.node)).toContain(e.provider);
          expect(e.cost).toBeGreaterThan(0);
        } else expect([e.provider, e.cost]).toEqual(['triad-guide', 0]);
        if (e.stream) expect(e.ttft_ms!).toBeLessThanOrEqual(e.latency_ms);
        else expect(e.ttft_ms).toBeNull();
      } else {
        expect(e.status).toBe(e.model === 'triad-demo' ? 502 : 429);
        expect([e.prompt_tokens, e.completion_tokens, e.cost]).toEqual([0, 0, 0]);
      }
    }
    // The bad afternoon's timeouts are there.
    expect(entries.some((e) => e.error === 'upstream_timeout')).toBe(true);
    // The demo nodes that served them count them in their partner's statistics: completions and tokens.
    for (const { node } of DEMO_SERVERS) {
      const own = entries.filter((e) => e.provider === node && e.error === null);
      const [row] = await d.db
        .select({
          requests: sql<number>`sum(${nodeServedHourly.requests})::int`,
          tokens: sql<number>`sum(${nodeServedHourly.tokens})::int`,
        })
        .from(nodeServedHourly)
        .innerJoin(nodes, eq(nodes.id, nodeServedHourly.nodeId))
        .where(eq(nodes.externalId, node));
      expect(own.length).toBeGreaterThan(0);
      expect(row).toEqual({ requests: own.length, tokens: own.reduce((n, e) => n + e.prompt_tokens + e.completion_tokens, 0) });
    }
  });

  it('replaces a revoked demo token with a working one', async () => {
    const { credentials } = await ensureDemo(d.db);
    await revokeOrgToken(d.db, { token: credentials.org_token });
    const again = await ensureDemo(d.db);
    expect(again.credentials.org_token).not.toBe(credentials.org_token);
    expect(await findOrgByToken(d.db, again.credentials.org_token)).toMatchObject({ name: 'Demo organization' });
    expect(again.credentials.api_key).toBe(credentials.api_key);
  });

  it('is safe to run concurrently', async () => {
    const results = await Promise.all([ensureDemo(d.db), ensureDemo(d.db), ensureDemo(d.db)]);
    expect(new Set(results.map((r) => r.credentials.org_token)).size).toBe(1);
  });
});
