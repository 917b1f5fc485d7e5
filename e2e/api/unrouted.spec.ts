import { expect, test } from '../support/fixtures';

/*
 * Under the API groups nothing answers in HTML (design §16): an unknown path is a 404 and a known path
 * asked with a method it does not have a 405 with `Allow`, each in its group's JSON shape; `/v1/…` without `/api`
 * a 404 saying where the API is; pages stay pages.
 */
test('an unknown API path is a 404 in its group’s JSON shape; a wrong method a 405 with Allow', async ({ request }) => {
  const chat404 = await request.post('/api/v1/chat/nothing-here', { data: {} });
  expect(chat404.status()).toBe(404);
  expect(chat404.headers()['content-type']).toContain('application/json');
  expect(await chat404.json()).toEqual({
    error: { type: 'invalid_request_error', code: 'unknown_url', message: expect.stringContaining('POST /api/v1/chat/nothing-here') },
  });

  for (const path of ['/api', '/api/v1', '/api/v1/nothing', '/organization/api/v1/nothing/at/all', '/api/org/nothing']) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(404);
    expect(await res.json(), path).toEqual({ error: { message: 'NOT FOUND', status: 404, detail: expect.stringContaining(path) } });
  }

  // A client checking that the base URL answers (Claude Code's HEAD /api) gets the 404's head, no HTML page.
  const head = await request.head('/api');
  expect(head.status()).toBe(404);
  expect(head.headers()['content-type']).toContain('application/json');

  const chat405 = await request.get('/api/v1/chat/completions');
  expect(chat405.status()).toBe(405);
  expect(chat405.headers().allow).toBe('POST, OPTIONS');
  expect(await chat405.json()).toEqual({
    error: {
      type: 'invalid_request_error',
      code: 'method_not_allowed',
      message: 'GET is not allowed on /api/v1/chat/completions; it takes POST.',
    },
  });
  const link405 = await request.delete('/organization/api/v1/aliases');
  expect(link405.status()).toBe(405);
  expect(link405.headers().allow).toBe('GET, HEAD, OPTIONS');
  expect(await link405.json()).toEqual({
    error: { message: 'METHOD NOT ALLOWED', status: 405, detail: 'DELETE is not allowed on /organization/api/v1/aliases; it takes GET' },
  });
  const responses405 = await request.put('/api/v1/responses/resp_x', { data: {} });
  expect(responses405.status()).toBe(405);
  expect(responses405.headers().allow).toBe('GET, DELETE, HEAD, OPTIONS');

  // A client given the server's bare address as its base URL asks /v1/…: told where the API is, in its dialect's shape.
  const bare = await request.post('/v1/chat/completions', { data: {} });
  expect(bare.status()).toBe(404);
  expect(bare.headers()['content-type']).toContain('application/json');
  expect(await bare.json()).toEqual({
    error: {
      type: 'invalid_request_error',
      code: 'unknown_url',
      message: expect.stringContaining('(here it is POST /api/v1/chat/completions)'),
    },
  });
  expect((await bare.json()).error.message).toContain('<this server>/api/v1');
  const claude = await request.post('/v1/messages?beta=true', { data: {} });
  expect(claude.status()).toBe(404);
  expect(await claude.json()).toEqual({
    type: 'error',
    error: { type: 'not_found_error', message: expect.stringContaining('Anthropic-style ones <this server>/api.') },
  });
  expect((await (await request.get('/v1')).json()).error.code).toBe('unknown_url');

  // A route's own methods and the pages are untouched.
  expect((await request.get('/api/health')).status()).toBe(200);
  const page = await request.get('/stats');
  expect(page.status()).toBe(200);
  expect(page.headers()['content-type']).toContain('text/html');
});
