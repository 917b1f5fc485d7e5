import path from 'node:path';
import { expect, test } from '@playwright/test';
import { serverArgs } from '../../scripts/server-args.mjs';
import { freePort, freshDataDir, localServerEnv, removeDataDirs, spawnServer } from '../support/server';

/*
 * Start-up as an operator's health check sees it: from the moment the port is open, `/api/health`
 * answers — 503 with the phase start-up is in (the first start sets up the demo's weeks of
 * history: a few seconds) — then 200 once the server is ready; a request its client gave up on while it
 * waited is logged as aborted with 499, not as a 200 that was never sent.
 */
test.afterAll(removeDataDirs);

test('the health check answers while the server starts (503 and the phase, never held until ready), then 200; an abandoned request is logged as 499', async () => {
  test.setTimeout(180_000);
  const port = await freePort();
  const dataDir = freshDataDir();
  const url = `http://127.0.0.1:${port}`;
  const starting = spawnServer(serverArgs(), {
    cwd: path.resolve(import.meta.dirname, '../..'),
    port,
    dataDir,
    env: localServerEnv(port, dataDir),
  });
  const answers: { status: number; body: { status?: string; phase?: string }; ms: number; at: number }[] = [];
  let abandoned = false;
  for (const until = Date.now() + 150_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const t0 = Date.now();
    let res: Response;
    try {
      res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5000) });
    } catch (e) {
      if ((e as Error).name === 'TimeoutError') throw new Error('the health check hung for 5 s while the server started');
      continue; // the port is not open yet
    }
    answers.push({
      status: res.status,
      body: (await res.json()) as { status?: string; phase?: string },
      ms: Date.now() - t0,
      at: Date.now(),
    });
    if (res.status === 503 && !abandoned) {
      // A request that waits for start-up, given up on by its client.
      abandoned = true;
      await fetch(`${url}/api/v1/models`, { signal: AbortSignal.timeout(300) }).catch(() => null);
    }
    if (res.status === 200) break;
  }
  const server = await starting;
  try {
    // Answered all along, not held until ready. (Not within milliseconds each: the embedded database's
    // WebAssembly runs on the server's one thread, and setting up the demo's history holds it for a
    // second or two at a time.)
    const waiting = answers.filter((a) => a.status === 503);
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    for (const a of waiting) {
      expect(a.body.status).toBe('starting');
      expect(['starting', 'database', 'demo', 'providers']).toContain(a.body.phase);
      expect(a.ms).toBeLessThan(10_000);
    }
    const ready = answers.at(-1)!;
    expect(ready).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(ready.at - waiting[0]!.at).toBeGreaterThan(1000); // the first answer came well before start-up ended
    await expect
      .poll(
        () =>
          server
            .output()
            .split('\n')
            .find((l) => l.includes('"path":"/api/v1/models"')) ?? '',
        { timeout: 10_000 },
      )
      .toMatch(/"status":499.*"aborted":true/);
  } finally {
    await server.stop();
  }
});
