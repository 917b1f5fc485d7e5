import { expect, test } from '../support/fixtures';

const both = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

test("security headers: a page's on pages, the API's on API replies, errors and streams", async ({ request, admin, org }) => {
  const { api_key } = await admin(['apikey', 'create', '--org', org.id]);
  const pages = [await request.get('/'), await request.get('/aliases'), await request.get('/no-such-page')]; // the last a 404
  for (const res of pages) {
    const h = res.headers();
    expect(h, res.url()).toMatchObject({ ...both, 'cross-origin-opener-policy': 'same-origin' });
    const csp = h['content-security-policy'];
    expect(csp, res.url()).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-eval'/);
    expect(h['permissions-policy'], res.url()).toContain('camera=()');
    expect(h['x-powered-by']).toBeUndefined();
  }
  const api = [
    await request.get('/api/health'),
    await request.get('/api/ping'), // served by Next
    await request.get('/api/v1/partner/nodes'), // 401
    await request.get('/api/v1/no-such-route'), // 404
    await request.get('/organization/api/v1/aliases'), // 401
    await request.post('/api/v1/chat/completions', {
      headers: { authorization: `Bearer ${api_key}` },
      data: { model: 'triad-guide', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    }),
  ];
  for (const res of api) {
    const h = res.headers();
    expect(h, res.url()).toMatchObject({ ...both, 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" });
    // What only a document uses is not sent with data.
    expect(h['cross-origin-opener-policy'], res.url()).toBeUndefined();
    expect(h['permissions-policy'], res.url()).toBeUndefined();
    expect(h['x-powered-by']).toBeUndefined();
  }
});
