import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor } from '@/lib/core/cursor';
import type { Database } from '@/lib/db/client';
import { engines } from '@/lib/db/test-engines';
import { deleteOldRequests, flushRequestLog, listRequests, recordRequest, type RequestRecord } from './request-log';

const NOW = Date.UTC(2026, 10, 26, 12, 0, 0);
const DAY = 86_400_000;
const record = (over: Partial<RequestRecord>): RequestRecord => ({
  requestId: 'r',
  orgId: 'org_a',
  apiKeyId: 'key_a',
  endpoint: '/api/v1/chat/completions',
  model: 'm',
  provider: 'p',
  status: 200,
  stream: false,
  latencyMs: 12.4,
  ttftMs: null,
  promptTokens: 3,
  completionTokens: 4,
  cost: '0.000011',
  error: null,
  traceId: null,
  at: NOW,
  ...over,
});

describe.each(engines)('the request log (%s)', (_name, open) => {
  let d: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ database: d, cleanup } = await open());
    const rows = [
      record({ requestId: 'old', at: NOW - 15 * DAY }),
      record({ requestId: 'a1', at: NOW - DAY, stream: true, ttftMs: 5.6 }),
      record({ requestId: 'a2', model: 'other', status: 404, error: 'model_not_found', provider: null }),
      record({ requestId: 'a3', apiKeyId: 'key_b', status: 200, error: 'aborted', traceId: 'f'.repeat(32) }),
      record({ requestId: 'b1', orgId: 'org_b', apiKeyId: 'key_c' }),
    ];
    for (const r of rows) recordRequest(d.db, r);
    await flushRequestLog();
  }, 120_000);
  afterAll(() => cleanup());

  const ids = async (f: Partial<Parameters<typeof listRequests>[1]> = {}) =>
    (await listRequests(d.db, { orgId: 'org_a', limit: 50, ...f })).entries.map((e) => e.request_id);

  it('gives an organization its own entries, newest first, exactly as recorded', async () => {
    expect(await ids()).toEqual(['a3', 'a2', 'a1', 'old']);
    expect(await ids({ orgId: 'org_b' })).toEqual(['b1']);
    const [a1] = (await listRequests(d.db, { orgId: 'org_a', limit: 1, requestId: 'a1' })).entries;
    expect(a1).toEqual({
      request_id: 'a1',
      created_at: new Date(NOW - DAY).toISOString(),
      api_key_id: 'key_a',
      endpoint: '/api/v1/chat/completions',
      model: 'm',
      provider: 'p',
      status: 200,
      stream: true,
      latency_ms: 12,
      ttft_ms: 6,
      prompt_tokens: 3,
      completion_tokens: 4,
      cost: 0.000011,
      error: null,
      trace_id: null,
    });
  });

  it('filters by key, model, status, a status class, errors and time; pages on with a cursor', async () => {
    expect(await ids({ apiKeyId: 'key_b' })).toEqual(['a3']);
    expect(await ids({ model: 'other' })).toEqual(['a2']);
    expect(await ids({ status: 404 })).toEqual(['a2']);
    expect(await ids({ status: '4xx' })).toEqual(['a2']);
    expect(await ids({ status: '2xx' })).toEqual(['a3', 'a1', 'old']);
    expect(await ids({ status: 'error' })).toEqual(['a3', 'a2']);
    expect(await ids({ startedAt: NOW - 2 * DAY, endedAt: NOW })).toEqual(['a1']);
    const first = await listRequests(d.db, { orgId: 'org_a', limit: 3 });
    expect(first.entries.map((e) => e.request_id)).toEqual(['a3', 'a2', 'a1']);
    const next = await listRequests(d.db, { orgId: 'org_a', limit: 3, after: decodeCursor('requests', first.after!) });
    expect(next).toEqual({ entries: [expect.objectContaining({ request_id: 'old' })], after: null });
  });

  it('forgets entries older than the days kept, and only those', async () => {
    expect(await deleteOldRequests(d.db, 14, NOW, 1)).toBe(1);
    expect(await ids()).toEqual(['a3', 'a2', 'a1']);
    expect(await deleteOldRequests(d.db, 14, NOW)).toBe(0);
  });

  it('stores a record whose model or error PostgreSQL could not hold (a NUL, half a surrogate pair) mended, and the rest of its statement with it', async () => {
    const odd = { orgId: 'org_odd', status: 502, at: NOW };
    recordRequest(d.db, record({ ...odd, requestId: 'fine' }));
    recordRequest(d.db, record({ ...odd, requestId: 'nul', error: 'the node could not serve it: a\u0000b' }));
    recordRequest(d.db, record({ ...odd, requestId: 'half', model: 'x\ud800', error: 'half \udc00 pair' }));
    await flushRequestLog();
    const { entries } = await listRequests(d.db, { orgId: 'org_odd', limit: 10 });
    expect(entries.map((e) => [e.request_id, e.model, e.error])).toEqual([
      ['half', 'x\ufffd', 'half \ufffd pair'],
      ['nul', 'm', 'the node could not serve it: a\ufffdb'],
      ['fine', 'm', null],
    ]);
  });
});
