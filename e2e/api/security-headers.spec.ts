import { expect, test } from '../support/fixtures';

const expected = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

test('security headers on pages, API replies, errors and streams', async ({ request, admin, org }) => {
  const { api_key } = await admin(['apikey', 'create', '--org', org.id]);
  const replies = [
    await request.get('/'),
    await request.get('/aliases'),
    await request.get('/api/health'),
    await request.get('/api/v1/partner/nodes'), // 401
    await request.get('/no-such-page'), // 404
    await request.post('/api/v1/chat/completions', {
      headers: { authorization: `Bearer ${api_key}` },
      data: { model: 'triad-guide', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    }),
  ];
  for (const res of replies) {
    const h = res.headers();
    expect(h, res.url()).toMatchObject(expected);
    const csp = h['content-security-policy'];
    expect(csp, res.url()).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-eval'/);
    expect(h['x-powered-by']).toBeUndefined();
  }
});
