import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { type Browser, chromium, expect, test } from '@playwright/test';
import { computeCacheBustingSearchParam } from 'next/dist/shared/lib/router/utils/cache-busting-search-param.js';
import { freshDataDir, removeDataDirs, type RunningServer, startServer } from '../support/server';

/*
 * The dashboard's prerendered pages, their RSC payloads and prefetch segments, and the build's files are
 * served past Next (lib/server/prerendered.ts); TRIAD_DIRECT_ROUTES=0 sends them through Next. A browser
 * must not be able to tell which: the same requests get the same status, headers and bodies from both,
 * unknown pages' 404 included — and the first server never loads Next's runtime for them (the memory it
 * saves), until a request that only Next answers (/api/ping) comes.
 */
test.describe.configure({ mode: 'serial' });

const APP = path.join(process.cwd(), '.next', 'server', 'app');
const servers: RunningServer[] = [];
const [direct, viaNext] = [() => servers[0]!, () => servers[1]!];
const appLoaded = (s: RunningServer) => s.output().includes('"msg":"app loaded"');

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const env = { TRIAD_DEMO: '0' };
  servers.push(await startServer(freshDataDir(), env));
  servers.push(await startServer(freshDataDir(), { ...env, TRIAD_DIRECT_ROUTES: '0' }));
});
test.afterAll(async () => {
  for (const s of servers.splice(0)) await s.stop();
  removeDataDirs();
});

type Reply = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

/** A raw exchange: the body as sent (compressed or not), the headers as they came. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What a client sees of a reply: status, the headers it acts on, and the body once decompressed. */
function seen(r: Reply) {
  const h = r.headers;
  const body = h['content-encoding'] === 'gzip' ? zlib.gunzipSync(r.body) : r.body;
  const keep = [
    'content-type',
    'content-encoding',
    'cache-control',
    'vary',
    'etag',
    'last-modified',
    'location',
    'x-nextjs-prerender',
    'x-nextjs-stale-time',
    'x-nextjs-postponed',
    'x-nextjs-cache',
    'content-security-policy',
    'x-content-type-options',
    'x-frame-options',
    'referrer-policy',
  ];
  return { status: r.status, headers: Object.fromEntries(keep.map((k) => [k, h[k]])), body: body.toString('utf8') };
}

/**
 * The prerendered pages of the build, with the segment paths their client router prefetches; and a node's
 * address, which next.config.ts rewrites to the one node page.
 */
function prerendered(): { route: string; segments: string[] }[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(process.cwd(), '.next', 'prerender-manifest.json'), 'utf8')) as {
    routes: Record<string, unknown>;
  };
  const pages = Object.keys(manifest.routes)
    .filter((r) => !r.startsWith('/_'))
    .map((route) => {
      const meta = JSON.parse(fs.readFileSync(path.join(APP, `${route === '/' ? 'index' : route.slice(1)}.meta`), 'utf8')) as {
        segmentPaths: string[];
      };
      return { route, segments: meta.segmentPaths };
    });
  const node = pages.find((p) => p.route === '/stats/node')!;
  return [...pages, { route: '/stats/demo-node-001', segments: node.segments }, { route: '/stats/a%20node%2F1', segments: node.segments }];
}

test('pages, RSC payloads, prefetched segments and static files: what Next sends for them', async () => {
  const pages = prerendered();
  expect(pages.map((p) => p.route)).toEqual(expect.arrayContaining(['/', '/stats', '/stats/node', '/aliases', '/playground', '/usage']));
  const gzip = { 'accept-encoding': 'gzip, deflate, br' };
  // As a browser asks for them: the page it navigates from in Next-Url (the app has no interception
  // routes, so it changes nothing but the cache-busting parameter).
  const rsc = async (extra: { 'next-router-prefetch'?: '1'; 'next-router-segment-prefetch'?: string }) => {
    const from = '/stats';
    const hash = await computeCacheBustingSearchParam(
      extra['next-router-prefetch'],
      extra['next-router-segment-prefetch'],
      undefined,
      from,
    );
    return { headers: { ...gzip, rsc: '1', 'next-url': from, ...extra }, query: `?_rsc=${hash}` };
  };
  const requests: { path: string; headers: Record<string, string>; method?: string }[] = [];
  for (const { route, segments } of pages) {
    requests.push({ path: route, headers: gzip });
    requests.push({ path: `${route}?from=2026-11-01`, headers: {} });
    requests.push({ path: route, headers: {}, method: 'HEAD' });
    const full = await rsc({});
    requests.push({ path: route + full.query, headers: full.headers });
    const prefetch = await rsc({ 'next-router-prefetch': '1' });
    requests.push({ path: route + prefetch.query, headers: prefetch.headers });
    for (const segment of segments) {
      const s = await rsc({ 'next-router-prefetch': '1', 'next-router-segment-prefetch': segment });
      requests.push({ path: route + s.query, headers: s.headers });
    }
  }
  // Every static file of the build, and public/'s.
  const statics = fs.readdirSync(path.join(process.cwd(), '.next', 'static'), { recursive: true, withFileTypes: true });
  for (const f of statics.filter((e) => e.isFile())) {
    const rel = path.relative(path.join(process.cwd(), '.next', 'static'), path.join(f.parentPath, f.name));
    requests.push({ path: `/_next/static/${rel.split(path.sep).join('/')}`, headers: gzip });
  }
  requests.push({ path: '/favicon.svg', headers: gzip });
  // A file's name sent with an escape (a browser escapes what a name may hold): the same file.
  const escaped = requests
    .at(-2)!
    .path.replace(/\/([^/])([^/]*)$/, (_, first: string, rest: string) => `/%${first.charCodeAt(0).toString(16)}${rest}`);
  expect(escaped).toContain('%');
  requests.push({ path: escaped, headers: gzip });
  expect(requests.length).toBeGreaterThan(100);

  for (const r of requests) {
    const [ours, next] = await Promise.all([direct(), viaNext()].map((s) => get(s.url + r.path, r.headers, r.method)));
    const label = `${r.method ?? 'GET'} ${r.path} ${JSON.stringify(r.headers)}`;
    expect(seen(ours!), label).toEqual(seen(next!));
    expect(ours!.status, label).toBe(200);
  }

  // Unknown pages: Next's not-found document, 404; and the paths near them that Next answers otherwise.
  const unknown = ['/no-such-page', '/favicon.ico', '/robots.txt', '/stats/a/b', '/index.html', '/Stats', '/a%20b'];
  for (const p of [...unknown, '/stats/', '/stats.rsc', '/_next/static/chunks/none.js', '/_not-found', '/api/ping']) {
    for (const method of ['GET', 'HEAD']) {
      const [ours, next] = await Promise.all([direct(), viaNext()].map((s) => get(s.url + p, gzip, method)));
      expect(seen(ours!), `${method} ${p}`).toEqual(seen(next!));
      if (unknown.includes(p)) expect(ours!.status, p).toBe(404);
    }
  }

  // A client holding the document or a file asks again: 304 from both.
  for (const p of ['/stats', '/favicon.svg']) {
    const first = await get(direct().url + p);
    const etag = String(first.headers.etag);
    const [ours, next] = await Promise.all([direct(), viaNext()].map((s) => get(s.url + p, { 'if-none-match': etag })));
    expect(ours!.status, p).toBe(304);
    expect(next!.status, p).toBe(304);
    expect(ours!.body.length).toBe(0);
  }

  // An RSC request without its cache-busting parameter, or with a wrong one, is redirected to the right one, as Next does.
  for (const q of ['', '?_rsc=wrong']) {
    const [ours, next] = await Promise.all(
      [direct(), viaNext()].map((s) => get(`${s.url}/stats${q}`, { rsc: '1', 'next-router-prefetch': '1' })),
    );
    expect(seen(ours!)).toEqual(seen(next!));
    expect(ours!.status).toBe(307);
  }
  // (Next answered those redirects on the first server too: whether it is loaded otherwise is the next test's.)
});

test("a browser walks the dashboard and a node's page without the server loading Next; what only Next answers loads it", async () => {
  test.setTimeout(120_000);
  const server = await startServer(freshDataDir(), {});
  servers.push(server);
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    const demo = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo-credentials.json'), 'utf8')) as Record<string, string>;
    const page = await browser.newPage({ baseURL: server.url });
    const signedIn = await page.request.post('/api/session', { data: { token: demo.org_token }, headers: { origin: server.url } });
    expect(signedIn.status()).toBe(200);
    const failed: string[] = [];
    page.on('response', (r) => void (r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`)));
    await page.goto('/');
    // Client-side navigations through the menu (the router fetches RSC payloads, and prefetches segments).
    for (const link of ['Stats', 'Aliases', 'Playground', 'Usage']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).first().click();
      await expect(page.getByRole('heading', { level: 1, name: link })).toBeVisible();
      await expect(page).toHaveURL(new RegExp(`/${link.toLowerCase()}$`));
    }
    await page.goBack();
    await expect(page.getByRole('heading', { level: 1, name: 'Playground' })).toBeVisible();
    // A node's page from the fleet (each node's address is the one node page), and back to the fleet.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Stats', exact: true }).first().click();
    await page.locator('a[href="/stats/demo-node-002"]').click();
    await expect(page).toHaveURL(/\/stats\/demo-node-002$/);
    await expect(page.getByText('demo-node-002 ·')).toBeVisible();
    await page.getByRole('link', { name: '← Fleet' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Stats' })).toBeVisible();
    // And one opened at its address.
    await page.goto('/stats/demo-node-003');
    await expect(page.getByText('demo-node-003 ·')).toBeVisible();
    expect(failed).toEqual([]);
    expect(appLoaded(server)).toBe(false);

    // An unknown page is answered without Next too; the framework's floor (/api/ping) is Next's.
    expect((await get(`${server.url}/no-such-page`)).status).toBe(404);
    expect(appLoaded(server)).toBe(false);
    expect((await get(`${server.url}/api/ping`)).status).toBe(200);
    expect(appLoaded(server)).toBe(true);
  } finally {
    await browser?.close();
  }
});
