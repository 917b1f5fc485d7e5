import type { APIRequestContext } from '@playwright/test';
import { expect, test } from '../support/fixtures';

const H = 3_600_000;
const DAY = 24 * H;
const T = Math.floor(Date.now() / H) * H - 48 * H; // an hour boundary two days ago
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

type Fleet = { token: string; secret: string };

/** A partner of a fresh organization with nodes registered through the API. */
async function fleet(
  request: APIRequestContext,
  admin: (a: string[]) => Promise<Record<string, unknown>>,
  org: { id: string; token: string },
  ids: string[],
): Promise<Fleet> {
  const { partner_secret } = await admin(['partner', 'create', '--org', org.id, '--name', 'P']);
  for (const id of ids) {
    const res = await request.post('/api/v1/node/register', {
      headers: auth(org.token),
      data: { id, secret: partner_secret, name: `Node ${id}`, ip: '10.0.0.9' },
    });
    expect(res.status()).toBe(200);
    expect(await res.json()).toEqual({ data: true });
  }
  return { token: org.token, secret: partner_secret as string };
}
const events = (request: APIRequestContext, f: Fleet, evs: object[]) =>
  request.post('/api/v1/node/events', { headers: auth(f.token), data: { secret: f.secret, events: evs } });
const get = (request: APIRequestContext, f: Fleet, path: string, params: Record<string, string | number | (string | number)[]>) => {
  const q = new URLSearchParams({ secret: f.secret });
  for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) q.append(k, String(x));
  return request.get(`${path}?${q}`, { headers: auth(f.token) });
};
async function expect400(res: import('@playwright/test').APIResponse, detail?: RegExp) {
  expect(res.status()).toBe(400);
  const { error } = await res.json();
  expect(error).toMatchObject({ message: 'INVALID_PARAMETERS', status: 400 });
  if (detail) expect(error.detail).toMatch(detail);
}

test.describe('partner node list', () => {
  test('entries have the interface fields and types; pages are stable with a total count', async ({ request, admin, org }) => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const f = await fleet(request, admin, org, ids);
    expect(
      await (
        await events(request, f, [
          { partner_node_id: 'b', type: 'connect', at: T, event_id: 'b1' },
          { partner_node_id: 'b', type: 'disconnect', at: T + H, event_id: 'b2', unit_shared: '12.5', usd_earned: '0.15' },
          { partner_node_id: 'c', type: 'connect', at: T },
        ])
      ).json(),
    ).toEqual({ data: { accepted: 3 } });

    const seen: Record<string, unknown>[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const res = await get(request, f, '/api/v1/partner/nodes', { limit: 2, ...(after ? { after } : {}) });
      expect(res.status()).toBe(200);
      const { data } = await res.json();
      expect(data.metadata.total_count).toBe(5);
      seen.push(...data.entries);
      after = data.metadata.after;
      pages++;
    } while (after);
    expect(pages).toBe(3);
    expect(seen.map((e) => e.external_id)).toEqual(ids);
    const b = seen[1]!;
    expect(b).toEqual({
      ip: '10.0.0.9',
      external_id: 'b',
      time_connected: H,
      unit_shared: '12.5',
      usd_earned: '0.15',
      public_id: expect.stringMatching(/^nd_/),
      public_name: 'Node b',
      connection_status: 'disconnected',
      network: 'private', // beyond the interface (design §20): it serves its own organization only
    });
    const c = seen[2]!;
    expect(c.connection_status).toBe('connected');
    expect(c.time_connected as number).toBeGreaterThanOrEqual(48 * H);

    const one = await (await get(request, f, '/api/v1/partner/nodes', { partner_node_id: 'd' })).json();
    expect(one.data.metadata).toEqual({ after: null, total_count: 1 });
    expect(one.data.entries.map((e: { external_id: string }) => e.external_id)).toEqual(['d']);
  });

  test('refuses bad parameters with 400 INVALID_PARAMETERS', async ({ request, admin, org }) => {
    const f = await fleet(request, admin, org, ['a']);
    await expect400(await get(request, f, '/api/v1/partner/nodes', { partner_node_id: 'nope' }), /unknown partner_node_id: nope/);
    await expect400(await get(request, f, '/api/v1/partner/nodes', { limit: 0 }), /limit/);
    await expect400(await get(request, f, '/api/v1/partner/nodes', { limit: 501 }), /limit/);
    await expect400(await get(request, f, '/api/v1/partner/nodes', { after: 'garbage' }), /after/);
    await expect400(await request.get('/api/v1/partner/nodes', { headers: auth(f.token) }), /secret/);
  });
});

test.describe('uptime', () => {
  test('rounds bounds down to the hour and sums the sessions in the range', async ({ request, admin, org }) => {
    const f = await fleet(request, admin, org, ['n']);
    await events(request, f, [
      { partner_node_id: 'n', type: 'connect', at: T + 30 * 60_000 },
      { partner_node_id: 'n', type: 'disconnect', at: T + 2 * H + 15 * 60_000 },
    ]);
    const res = await get(request, f, '/api/v1/uptime', {
      partner_node_id: 'n',
      started_at: T + 59 * 60_000,
      ended_at: T + 2 * H + 59 * 60_000,
    });
    expect(res.status()).toBe(200);
    // Rounded to [T, T + 2h): 30 min + 60 min.
    expect(await res.json()).toEqual({ data: { uptime: 90 * 60_000, partner_node_id: 'n' } });
    // Either bound missing: the total uptime.
    for (const params of [{}, { started_at: T }, { ended_at: T + H }] as Record<string, number>[]) {
      const total = await (await get(request, f, '/api/v1/uptime', { partner_node_id: 'n', ...params })).json();
      expect(total.data.uptime).toBe(105 * 60_000);
    }
  });

  test('allows 14 days after rounding and refuses more, reversed or malformed bounds', async ({ request, admin, org }) => {
    const f = await fleet(request, admin, org, ['n']);
    const ok = await get(request, f, '/api/v1/uptime', { partner_node_id: 'n', started_at: T - 14 * DAY, ended_at: T + H - 1 });
    expect(ok.status()).toBe(200);
    await expect400(
      await get(request, f, '/api/v1/uptime', { partner_node_id: 'n', started_at: T - 14 * DAY, ended_at: T + H }),
      /at most 14 days/,
    );
    await expect400(
      await get(request, f, '/api/v1/uptime', { partner_node_id: 'n', started_at: T + H, ended_at: T }),
      /started_at must not be after ended_at/,
    );
    // Seconds for milliseconds (a common slip) is told apart from a range in January 1970.
    await expect400(
      await get(request, f, '/api/v1/uptime', { partner_node_id: 'n', started_at: T / 1000, ended_at: T / 1000 + 3600 }),
      /looks like seconds since the epoch; timestamps here are milliseconds/,
    );
    for (const bad of ['1.5', '-1', 'abc', '1e12', '', '99999999999999999999']) {
      await expect400(await get(request, f, '/api/v1/uptime', { partner_node_id: 'n', started_at: bad, ended_at: T }), /started_at/);
    }
    await expect400(await get(request, f, '/api/v1/uptime', {}), /partner_node_id/);
    await expect400(await get(request, f, '/api/v1/uptime', { partner_node_id: ['n', 'n'] }), /partner_node_id/);
    await expect400(await get(request, f, '/api/v1/uptime', { partner_node_id: 'ghost' }), /unknown partner_node_id: ghost/);
  });

  test('uptimes answers up to five nodes, in order', async ({ request, admin, org }) => {
    const ids = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
    const f = await fleet(request, admin, org, ids);
    await events(request, f, [
      { partner_node_id: 'u2', type: 'connect', at: T },
      { partner_node_id: 'u2', type: 'disconnect', at: T + 2 * H },
    ]);
    const res = await get(request, f, '/api/v1/uptimes', { 'partner_node_id[]': ['u2', 'u1'], started_at: T, ended_at: T + H });
    expect(await res.json()).toEqual({
      data: [
        { uptime: H, partner_node_id: 'u2' },
        { uptime: 0, partner_node_id: 'u1' },
      ],
    });
    await expect400(await get(request, f, '/api/v1/uptimes', { 'partner_node_id[]': ids }), /at most 5/);
  });
});

test.describe('partner details', () => {
  test('one status per repeated partner_node_id[], in the order asked', async ({ request, admin, org }) => {
    const f = await fleet(request, admin, org, ['x', 'y']);
    await events(request, f, [
      { partner_node_id: 'x', type: 'connect', at: T },
      { partner_node_id: 'y', type: 'connect', at: T },
      { partner_node_id: 'y', type: 'disconnect', at: T + 3 * H },
    ]);
    const res = await get(request, f, '/api/v1/partner/details', { 'partner_node_id[]': ['y', 'x', 'y'] });
    expect(res.status()).toBe(200);
    const { data } = await res.json();
    expect(data).toHaveLength(3);
    expect(data[0]).toEqual({ connection_status: 'disconnected', total_uptime: 3 * H, partner_node_id: 'y' });
    expect(data[1]).toMatchObject({ connection_status: 'connected', partner_node_id: 'x' });
    expect(data[2]).toEqual(data[0]);
    await expect400(await get(request, f, '/api/v1/partner/details', {}), /partner_node_id/);
    await expect400(await get(request, f, '/api/v1/partner/details', { 'partner_node_id[]': ['x', 'ghost'] }), /ghost/);

    const single = await (await get(request, f, '/api/v1/partner/detail', { partner_node_id: 'y' })).json();
    expect(single).toEqual({ data: { connection_status: 'disconnected', total_uptime: 3 * H, partner_node_id: 'y' } });
  });
});

test.describe('series and summary', () => {
  test('hour and day buckets of one node', async ({ request, admin, org }) => {
    const f = await fleet(request, admin, org, ['s']);
    await events(request, f, [
      { partner_node_id: 's', type: 'connect', at: T + 30 * 60_000 },
      { partner_node_id: 's', type: 'disconnect', at: T + 2 * H },
    ]);
    const hours = (
      await (await get(request, f, '/api/v1/uptime/series', { partner_node_id: 's', started_at: T, ended_at: T + 4 * H })).json()
    ).data;
    expect(hours).toMatchObject({ partner_node_id: 's', bucket_ms: H, started_at: T, ended_at: T + 4 * H });
    const none = { requests: 0, tokens: 0, usd: '0' }; // served through a linked provider: nothing here
    expect(hours.points).toEqual([
      { start: T, uptime: 30 * 60_000, served: none },
      { start: T + H, uptime: H, served: none },
      { start: T + 2 * H, uptime: 0, served: none },
      { start: T + 3 * H, uptime: 0, served: none },
    ]);
    const days = (
      await (
        await get(request, f, '/api/v1/uptime/series', { partner_node_id: 's', started_at: T - 30 * DAY, ended_at: T + DAY, bucket: 'day' })
      ).json()
    ).data;
    expect(days.points.reduce((s: number, p: { uptime: number }) => s + p.uptime, 0)).toBe(90 * 60_000);
    await expect400(
      await get(request, f, '/api/v1/uptime/series', { partner_node_id: 's', started_at: T - 15 * DAY, ended_at: T }),
      /14 days/,
    );
    const summary = (await (await get(request, f, '/api/v1/partner/summary', {})).json()).data;
    expect(summary).toEqual({ nodes: 1, connected: 0, total_uptime: 90 * 60_000, unit_shared: '0', usd_earned: '0' });
  });
});

test.describe('ingestion', () => {
  test('is idempotent on event_id and refuses bad batches whole', async ({ request, admin, org }) => {
    const f = await fleet(request, admin, org, ['i']);
    const batch = [
      { partner_node_id: 'i', type: 'connect', at: T, event_id: 'e1' },
      { partner_node_id: 'i', type: 'disconnect', at: T + H, event_id: 'e2', usd_earned: '0.5' },
    ];
    expect(await (await events(request, f, batch)).json()).toEqual({ data: { accepted: 2 } });
    expect(await (await events(request, f, batch)).json()).toEqual({ data: { accepted: 0 } });
    const bad: [object[], RegExp][] = [
      [[{ partner_node_id: 'ghost', type: 'connect', at: T }], /unknown partner_node_id: ghost/],
      [[{ partner_node_id: 'i', type: 'connect', at: Date.now() + DAY }], /future/],
      [[{ partner_node_id: 'i', type: 'connect', at: Date.now() - 36 * DAY }], /older than the retention window of 35 days/],
      [[{ partner_node_id: 'i', type: 'reboot', at: T }], /type/],
      [[{ partner_node_id: 'i', type: 'connect', at: T + 0.5 }], /integer/],
      [[{ partner_node_id: 'i', type: 'connect', at: T, usd_earned: '-1' }], /usd_earned/],
      [[{ partner_node_id: 'i', type: 'connect', at: T, unit_shared: 1.5 }], /unit_shared/],
      [[], /events must not be empty/],
      // Half a surrogate pair (jsonb, which the batch is written as, refuses it): a 400, not a 500.
      [[{ partner_node_id: 'i', type: 'heartbeat', at: T + H, event_id: 'e\ud800' }], /half a surrogate pair/],
      [
        [
          { partner_node_id: 'i', type: 'disconnect', at: T + 2 * H },
          { partner_node_id: 'ghost', type: 'connect', at: T },
        ],
        /ghost/,
      ],
    ];
    for (const [evs, detail] of bad) await expect400(await events(request, f, evs), detail);
    const node = (await (await get(request, f, '/api/v1/partner/nodes', {})).json()).data.entries[0];
    expect(node).toMatchObject({ time_connected: H, usd_earned: '0.5' });
    // What its events reported earned is in its statement once (design §17), in the hour it was reported.
    const statement = (await (await get(request, f, '/api/v1/partner/earnings', { partner_node_id: 'i', bucket: 'month' })).json()).data;
    expect(statement).toMatchObject({ usd_earned: '0.5', total: { requests: 0, usd_earned: '0.5' } });
  });
});

test('auth: 401 without a valid org token or with a secret of another organization; nothing of another partner is visible', async ({
  request,
  admin,
  org,
}) => {
  const mine = await fleet(request, admin, org, ['mine']);
  const other = await admin(['org', 'create', '--name', 'Other']);
  const theirs = await fleet(request, admin, { id: other.org_id as string, token: other.org_token as string }, ['theirs']);
  const paths = [
    '/api/v1/partner/nodes',
    '/api/v1/uptime',
    '/api/v1/partner/details',
    '/api/v1/uptimes',
    '/api/v1/partner/detail',
    '/api/v1/uptime/series',
  ];
  for (const path of paths) {
    for (const headers of [{}, auth('org_invalid'), { authorization: 'Bearer' }]) {
      const res = await request.get(`${path}?secret=${mine.secret}&partner_node_id=mine`, { headers });
      expect(res.status(), path).toBe(401);
      expect((await res.json()).error).toMatchObject({ message: 'UNAUTHORIZED', status: 401 });
    }
    // My token with their partner secret: 401, not their data.
    const cross = await request.get(`${path}?secret=${theirs.secret}&partner_node_id=theirs&started_at=${T}&ended_at=${T + H}`, {
      headers: auth(mine.token),
    });
    expect(cross.status(), path).toBe(401);
  }
  // My token and secret, their node id: unknown to my partner.
  await expect400(await get(request, mine, '/api/v1/uptime', { partner_node_id: 'theirs' }), /unknown/);
  const list = (await (await get(request, mine, '/api/v1/partner/nodes', {})).json()).data;
  expect(list.entries.map((e: { external_id: string }) => e.external_id)).toEqual(['mine']);
  // Ingestion is guarded the same way.
  expect(
    (
      await request.post('/api/v1/node/events', {
        headers: auth(mine.token),
        data: { secret: theirs.secret, events: [{ partner_node_id: 'theirs', type: 'connect', at: T }] },
      })
    ).status(),
  ).toBe(401);
  expect(
    (await request.post('/api/v1/node/register', { headers: auth(mine.token), data: { id: 'sneaky', secret: theirs.secret } })).status(),
  ).toBe(401);
});
