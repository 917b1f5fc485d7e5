import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrganization } from '@/lib/auth/credentials';
import { bucketBound, latencyBucket, percentile, recordLatency } from '@/lib/chat/latency';
import { recordUsage } from '@/lib/chat/usage';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { listApiKeys, revokeOrgApiKey } from './org';
import { usageSeries } from './usage';

describe('latency histograms', () => {
  it('put a time in the bucket whose bound is within 10 % above it', () => {
    for (const ms of [1, 2, 7, 40, 123, 999, 5000, 61_000]) {
      const bound = bucketBound(latencyBucket(ms));
      expect(bound).toBeGreaterThanOrEqual(Math.floor(ms));
      expect(bound).toBeLessThanOrEqual(Math.ceil(ms * 1.1) + 1);
    }
    expect(latencyBucket(0)).toBe(0);
  });
  it('read percentiles back by rank', () => {
    const h: [number, number][] = [
      [latencyBucket(100), 90],
      [latencyBucket(1000), 10],
    ];
    expect(percentile(h, 50)).toBe(bucketBound(latencyBucket(100)));
    expect(percentile(h, 90)).toBe(bucketBound(latencyBucket(100)));
    expect(percentile(h, 95)).toBe(bucketBound(latencyBucket(1000)));
    expect(percentile([], 50)).toBeNull();
  });
});

describe.each(engines)('usage over time on %s', (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ database: d, cleanup } = await open()));
  afterAll(() => cleanup());

  it('counts each key and model exactly, per hour and per day, with errors and latency; other organizations see none of it', async () => {
    const org = await createOrganization(d.db, { name: 'A' });
    const other = await createOrganization(d.db, { name: 'B' });
    const k1 = await createApiKey(d.db, { orgId: org.id, label: 'web' });
    const k2 = await createApiKey(d.db, { orgId: org.id, label: 'batch' });
    const kb = await createApiKey(d.db, { orgId: other.id });
    const use = (apiKeyId: string, model: string, outcome = 'stop', p = 10, c = 5) =>
      recordUsage(d.db, { apiKeyId, model, promptTokens: p, completionTokens: c, cost: '0', stream: false, outcome, platform: null });
    for (let i = 0; i < 7; i++) use(k1.id, 'm1');
    for (let i = 0; i < 3; i++) use(k2.id, 'm2');
    use(k2.id, 'm2', 'failed', 0, 0);
    use(kb.id, 'm1');
    for (const ms of [100, 100, 100, 2000]) recordLatency(d.db, { apiKeyId: k1.id, model: 'm1', kind: 'total', ms });
    recordLatency(d.db, { apiKeyId: k1.id, model: 'm1', kind: 'ttft', ms: 50 });

    const now = Date.now();
    const range = { orgId: org.id, from: now - 3_600_000 * 2, to: now + 60_000 };
    const byKey = await usageSeries(d.db, { ...range, bucket: 'hour', groupBy: 'key' });
    const sum = (rows: typeof byKey, f: 'requests' | 'prompt_tokens' | 'errors') => rows.reduce((n, r) => n + r[f], 0);
    expect(sum(byKey, 'requests')).toBe(11);
    expect(sum(byKey, 'prompt_tokens')).toBe(100);
    expect(sum(byKey, 'errors')).toBe(1);
    const web = byKey.filter((r) => r.group === k1.id);
    expect(web.reduce((n, r) => n + r.requests, 0)).toBe(7);
    expect(web[0]!.label).toMatch(/^web \(sk_live_/);
    const withLatency = web.find((r) => r.latency_p50_ms !== null)!;
    expect(withLatency.latency_p50_ms).toBe(bucketBound(latencyBucket(100)));
    expect(withLatency.latency_p95_ms).toBe(bucketBound(latencyBucket(2000)));
    expect(withLatency.ttft_p50_ms).toBe(bucketBound(latencyBucket(50)));

    const byModel = await usageSeries(d.db, { ...range, bucket: 'day', groupBy: 'model' });
    expect(Object.fromEntries(byModel.map((r) => [r.group, r.requests]))).toEqual({ m1: 7, m2: 4 });
    expect(byModel.every((r) => r.bucket_start % 86_400_000 === 0)).toBe(true);

    expect(await usageSeries(d.db, { ...range, bucket: 'hour', groupBy: 'key', apiKeyId: kb.id })).toEqual([]);
    const theirs = await usageSeries(d.db, { ...range, orgId: other.id, bucket: 'hour', groupBy: 'key' });
    expect(theirs.reduce((n, r) => n + r.requests, 0)).toBe(1);

    // The administrator's view: the whole instance, per organization (keys gathered into theirs).
    const byOrg = await usageSeries(d.db, { ...range, orgId: null, bucket: 'day', groupBy: 'organization' });
    expect(Object.fromEntries(byOrg.map((r) => [r.label, r.requests]))).toEqual({ A: 11, B: 1 });
    expect(byOrg.find((r) => r.label === 'A')!.latency_p95_ms).toBe(bucketBound(latencyBucket(2000)));
    expect(byOrg.find((r) => r.label === 'B')!.latency_p50_ms).toBeNull();

    const keys = await listApiKeys(d.db, org.id);
    expect(keys.map((k) => [k.name, k.requests_24h])).toEqual([
      ['batch', 4],
      ['web', 7],
    ]);
    expect(keys[0]!.last_used_at).not.toBeNull();
    expect(await revokeOrgApiKey(d.db, other.id, k1.id)).toBe(false);
    expect(await revokeOrgApiKey(d.db, org.id, k1.id)).toBe(true);
    expect((await listApiKeys(d.db, org.id)).find((k) => k.id === k1.id)!.revoked_at).not.toBeNull();
  });
});
