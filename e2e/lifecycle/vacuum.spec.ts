import { expect, test } from '@playwright/test';
import { runAdmin } from '../support/fixtures';
import { freshDataDir, removeDataDirs, startServer } from '../support/server';

/*
 * The embedded database vacuums itself on its schedule (lib/db/vacuum.ts, docs/operations.md "Bounded
 * growth and outages"): PGlite has no autovacuum, so the server runs its rounds. The first round after a
 * start takes every table of Triad's; a later one the tables whose dead rows passed autovacuum's
 * threshold (50 + 20 % of the rows), here the aliases an organization made and deleted. Read from the
 * server's `vacuum` log lines, with the rounds every 2 s (TRIAD_PGLITE_VACUUM_S).
 */
test.afterAll(removeDataDirs);

test('the embedded server vacuums every table at its first round, then the table whose rows were deleted', async () => {
  const dataDir = freshDataDir();
  const server = await startServer(dataDir, { TRIAD_DEMO: '0', TRIAD_PGLITE_VACUUM_S: '2', TRIAD_LINK_RATE_PER_S: '10000' });
  const rounds = () =>
    server
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"vacuum"'))
      .map((line) => (JSON.parse(line) as { tables: string }).tables.split(' '));

  await expect.poll(() => rounds().length, { timeout: 15_000 }).toBeGreaterThan(0);
  expect(rounds()[0]).toEqual(expect.arrayContaining(['public.aliases', 'public.api_keys', 'public.node_events', 'public.request_log']));

  // Nothing changed since: the rounds that follow vacuum nothing of the aliases.
  const { org_token } = await runAdmin({ TRIAD_DATA_DIR: dataDir }, ['org', 'create', '--name', 'Vacuum']);
  const headers = { authorization: `Bearer ${org_token}`, 'content-type': 'application/json' };
  const expiredAt = Math.floor(Date.now() / 1000) + 600;
  const ids: string[] = [];
  for (let i = 0; i < 80; i++) {
    const res = await fetch(`${server.url}/organization/api/v1/alias/create`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'live', stream_key: `sk-${i}`, expired_at: expiredAt }),
    });
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { data: { id: string } }).data.id);
  }
  const before = rounds().length;
  expect(
    rounds()
      .slice(1)
      .some((tables) => tables.includes('public.aliases')),
  ).toBe(false);
  for (const id of ids) {
    const res = await fetch(`${server.url}/organization/api/v1/alias/delete/${id}`, { method: 'DELETE', headers });
    expect(res.status).toBe(200);
  }
  await expect
    .poll(
      () =>
        rounds()
          .slice(before)
          .some((tables) => tables.includes('public.aliases')),
      { timeout: 15_000 },
    )
    .toBe(true);
});
