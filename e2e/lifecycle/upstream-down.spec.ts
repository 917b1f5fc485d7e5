import { expect, test } from '@playwright/test';
import { runAdmin } from '../support/fixtures';
import { freePort, freshDataDir, removeDataDirs, startServer } from '../support/server';

test.afterAll(removeDataDirs);

test('with the upstream down from the start: 503 no_provider_available (its models are unknown), triad-guide still answers', async () => {
  const dataDir = freshDataDir();
  // A port that was free a moment ago: nothing listens there, connections are refused.
  const closedPort = await freePort();
  const server = await startServer(dataDir, {
    TRIAD_UPSTREAM_URL: `http://127.0.0.1:${closedPort}/v1`,
    TRIAD_DEMO: '0',
    TRIAD_GUIDE_DELAY_MS: '0',
  });
  try {
    const env = { TRIAD_DATA_DIR: dataDir };
    const { org_id } = await runAdmin(env, ['org', 'create', '--name', 'Down']);
    const { api_key } = await runAdmin(env, ['apikey', 'create', '--org', org_id!]);
    const headers = { authorization: `Bearer ${api_key}`, 'content-type': 'application/json' };
    const res = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'llama3.2:1b', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('15');
    const body = (await res.json()) as { error: Record<string, string> };
    expect(body.error).toMatchObject({ type: 'api_error', code: 'no_provider_available', message: expect.stringContaining('llama3.2:1b') });
    const models = (await (await fetch(`${server.url}/api/v1/models`, { headers })).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(['triad-guide']);
    const guide = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'triad-guide', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(guide.status).toBe(200);
  } finally {
    await server.stop();
  }
});
