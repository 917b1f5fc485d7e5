import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import module from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/*
 * The dashboard's pages served past Next. Every page of the app is prerendered when it is built (its data
 * comes from the API, in the browser), so what Next does for a page is read files of the build and send
 * them: the document, the payload its client router asks for on a navigation (RSC) and the segments it
 * prefetches, the build's static files and public/. That is what this does, with the headers and bodies
 * Next sends for them (the parity is tested: e2e/lifecycle/pages.spec.ts), without loading Next's runtime:
 * about 16 MB of resident memory for good and half a second at the first page (docs/benchmarks.md,
 * "The dashboard without Next's runtime").
 *
 * Every node's page is one of them, at each node's address (next.config.ts's rewrite, read from the build).
 * Only what it knows exactly: a request it does not (another method, a path the build did not prerender,
 * a page to be revalidated, an RSC request whose cache-busting parameter does not match its headers, a
 * prefetch of another kind, an intercepted navigation, a server action) goes to Next, which answers as
 * it always has. Nothing is kept in memory but the list of the build's files and the pages' headers.
 */

export type Prerendered = {
  /** Serves the request if it is one of the build's pages or files, with `base` headers first; false if it is not (Next's, then). */
  serve: (req: IncomingMessage, res: ServerResponse, base: readonly [string, string][]) => Promise<boolean>;
};

type Page = {
  html: string;
  etag: string;
  rsc: string;
  /** The page's metadata headers (Next's `.meta` file, its cache tags left out: Next does not send them either). */
  headers: [string, string][];
  /** Segment path (the `next-router-segment-prefetch` header) → its file. */
  segments: Map<string, string>;
};
/** A rewrite as the build lists it (routes-manifest.json). */
type Rewrite = { source: string; destination: string; regex?: string; has?: unknown; missing?: unknown };
type File = { file: string; type: string; etag: string; modified: string; cacheControl: string };

// Next's own headers for a prerendered page (its app-page runtime and base server); the Vary its build
// names (routes-manifest.json) if it does.
const VARY = 'rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch';
const ONE_YEAR = 's-maxage=31536000';
const NOT_CACHED = 'private, no-cache, no-store, max-age=0, must-revalidate';
const HTML = 'text/html; charset=utf-8';
const RSC = 'text/x-component';

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=UTF-8',
  '.mjs': 'application/javascript; charset=UTF-8',
  '.css': 'text/css; charset=UTF-8',
  '.json': 'application/json; charset=UTF-8',
  '.map': 'application/json; charset=UTF-8',
  '.txt': 'text/plain; charset=UTF-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
};
/**
 * Types worth compressing (as Next's compression does: `compressible`). Files from 1 KiB on (the size
 * Next's compression reads from their length); pages and payloads whatever their size (Next sends them
 * without a length, so its compression does not look at it).
 */
const COMPRESSIBLE = /^(?:text\/|application\/(?:javascript|json)|image\/svg\+xml)/;
const MIN_COMPRESSED_FILE = 1024;
const gzip = promisify(zlib.gzip);

type CacheBusting = (prefetch?: string, segment?: string, tree?: string, nextUrl?: string) => string | Promise<string>;
type CacheBustingModule = { computeCacheBustingSearchParam: CacheBusting; computeLegacyCacheBustingSearchParam: CacheBusting };

/**
 * The build in `nextDir` (.next) and `publicDir`, read once: null when there is no build whose pages this
 * can serve (then every page is Next's).
 */
export function loadPrerendered(nextDir: string, publicDir: string): Prerendered | null {
  const manifest = readJson(path.join(nextDir, 'prerender-manifest.json')) as {
    routes?: Record<
      string,
      {
        initialRevalidateSeconds?: unknown;
        initialStatus?: number;
        initialHeaders?: unknown;
        renderingMode?: string;
        dataRoute?: string | null;
      }
    >;
  } | null;
  if (!manifest?.routes) return null;
  // Paths the build serves as they are: no redirects of the app's own (Next's trailing-slash one aside), no
  // base path, no rewrites but those to a prerendered page (below). And whether the navigating page's URL
  // (Next-Url) changes a payload: only with interception routes, which the Vary of payloads then names.
  const routing = readJson(path.join(nextDir, 'routes-manifest.json')) as {
    basePath?: string;
    rewrites?: Record<'beforeFiles' | 'afterFiles' | 'fallback', Rewrite[]> | Rewrite[];
    redirects?: { internal?: boolean }[];
    rsc?: { varyHeader?: string };
    staticRoutes?: { page: string }[];
    dynamicRoutes?: { regex: string }[];
  } | null;
  if (!routing || routing.basePath || routing.redirects?.some((r) => !r.internal)) return null;
  const rewrites: Partial<Record<'beforeFiles' | 'afterFiles' | 'fallback', Rewrite[]>> = Array.isArray(routing.rewrites)
    ? { afterFiles: routing.rewrites }
    : (routing.rewrites ?? {});
  if (rewrites.beforeFiles?.length || rewrites.fallback?.length) return null;
  const vary = routing.rsc?.varyHeader ?? VARY;
  // Whether Next answers a path with its not-found page: not one it has a route for (a page, an API route
  // such as /api/ping), nor one of its own (`/_next/…`, `/_not-found`), nor a payload by its suffix (`.rsc`),
  // nor one it redirects (a trailing slash).
  const routed = new Set((routing.staticRoutes ?? []).map((r) => r.page));
  const routedPatterns = (routing.dynamicRoutes ?? []).map((r) => new RegExp(r.regex));
  const isUnknownPage = (pathname: string) =>
    !pathname.startsWith('/_') &&
    !pathname.endsWith('/') &&
    !pathname.endsWith('.rsc') &&
    !routed.has(pathname) &&
    !routedPatterns.some((r) => r.test(pathname));
  const nextUrlMatters = /\bnext-url\b/i.test(vary);
  // The functions Next checks an RSC request's `_rsc` parameter with (the same module, so the same result);
  // without them, RSC requests are Next's.
  let busting: CacheBustingModule | null = null;
  try {
    busting = module.createRequire(path.join(nextDir, '..', 'package.json'))(
      'next/dist/shared/lib/router/utils/cache-busting-search-param',
    );
  } catch {
    busting = null;
  }
  const generateETag = loadETag(nextDir);
  const appDir = path.join(nextDir, 'server', 'app');
  const pages = new Map<string, Page>();
  for (const [route, entry] of Object.entries(manifest.routes)) {
    // Served at their own path only: internal pages (/_not-found) and those Next regenerates are Next's.
    if (route.startsWith('/_') || entry.initialRevalidateSeconds !== false || entry.renderingMode) continue;
    if ((entry.initialStatus ?? 200) !== 200 || entry.initialHeaders || !entry.dataRoute) continue;
    const page = readPage(appDir, route, entry.dataRoute, generateETag);
    if (page) pages.set(route, page);
  }
  // The document of an unknown page (404), as Next sends it, when the build prerendered it.
  const notFoundEntry = manifest.routes['/_not-found'];
  const notFound =
    notFoundEntry?.initialStatus === 404 && notFoundEntry.initialRevalidateSeconds === false && notFoundEntry.dataRoute
      ? readPage(appDir, '/_not-found', notFoundEntry.dataRoute, generateETag)
      : null;
  // Rewrites to a prerendered page (each node's page): those only, unconditional, else every page is Next's.
  const rewritten: { regex: RegExp; page: Page }[] = [];
  for (const r of rewrites.afterFiles ?? []) {
    const page = pages.get(r.destination);
    if (!page || r.has || r.missing || !r.regex) return null;
    rewritten.push({ regex: new RegExp(r.regex), page });
  }
  const files = new Map<string, File>();
  listFiles(path.join(nextDir, 'static'), '/_next/static', 'public, max-age=31536000, immutable', files);
  listFiles(publicDir, '', 'public, max-age=0', files);

  return {
    async serve(req, res, base) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const pathname = q < 0 ? url : url.slice(0, q);
      const file = files.get(decoded(pathname));
      if (file) return serveFile(req, res, base, file);
      // Paths with a trailing slash are redirected by Next.
      const page = pages.get(pathname) ?? (pathname.endsWith('/') ? undefined : rewritten.find((r) => r.regex.test(pathname))?.page);
      const h = req.headers;
      if (!page)
        return notFound && h.rsc === undefined && isUnknownPage(pathname) ? sendDocument(req, res, base, notFound, vary, 404) : false;
      const nextUrl = h['next-url'] as string | undefined;
      if (h['next-action'] !== undefined || (nextUrl !== undefined && nextUrlMatters)) return false;
      if (h.rsc === undefined) return sendDocument(req, res, base, page, vary, 200);
      if (h.rsc !== '1' || !busting) return false;
      const prefetch = h['next-router-prefetch'];
      if (prefetch !== undefined && prefetch !== '1') return false;
      const segment = h['next-router-segment-prefetch'];
      if (segment !== undefined && (typeof segment !== 'string' || prefetch !== '1')) return false;
      const tree = h['next-router-state-tree'] as string | undefined;
      const given = new URLSearchParams(q < 0 ? '' : url.slice(q + 1)).get('_rsc');
      if (given === null) return false; // Next redirects to the URL with it
      const expected = await busting.computeCacheBustingSearchParam(prefetch, segment, tree, nextUrl);
      if (given !== expected && given !== (await busting.computeLegacyCacheBustingSearchParam(prefetch, segment, tree, nextUrl)))
        return false;
      if (segment === undefined) return sendPayload(req, res, base, page.rsc, [...PRERENDERED, ...page.headers], vary);
      const segmentFile = page.segments.get(segment);
      if (!segmentFile) return false;
      return sendPayload(req, res, base, segmentFile, [...PRERENDERED, ['x-nextjs-postponed', '2']], vary);
    },
  };
}

/** A prerendered page's files, read once for its ETag; null if they are not all there. */
function readPage(appDir: string, route: string, dataRoute: string, generateETag: (body: string) => string): Page | null {
  const base = path.join(appDir, route === '/' ? 'index' : route.slice(1));
  const html = `${base}.html`;
  const rsc = path.join(appDir, dataRoute.slice(1));
  const meta = readJson(`${base}.meta`) as { headers?: Record<string, string>; segmentPaths?: string[] } | null;
  let body: string;
  try {
    body = fs.readFileSync(html, 'utf8');
    if (!fs.statSync(rsc).isFile()) return null;
  } catch {
    return null;
  }
  const headers = Object.entries(meta?.headers ?? {}).filter(([k]) => k !== 'x-next-cache-tags');
  const segments = new Map((meta?.segmentPaths ?? []).map((s) => [s, `${base}.segments${s}.segment.rsc`]));
  return { html, etag: generateETag(body), rsc, headers, segments };
}

const PRERENDERED: [string, string][] = [
  ['x-nextjs-cache', 'HIT'],
  ['x-nextjs-prerender', '1'],
];

/**
 * A page's document with Next's headers and its ETag, compressed when the client takes it: 200 (a 304 for a
 * client that has it, cached for a year) or, for the not-found document, 404 (never cached).
 */
async function sendDocument(
  req: IncomingMessage,
  res: ServerResponse,
  base: readonly [string, string][],
  page: Page,
  vary: string,
  status: 200 | 404,
): Promise<boolean> {
  const body = await readOrNull(page.html);
  if (!body) return false;
  const cacheControl = status === 200 ? ONE_YEAR : NOT_CACHED;
  const headers: [string, string][] = [...PRERENDERED, ...page.headers, ['Cache-Control', cacheControl], ['ETag', page.etag]];
  res.statusCode = status;
  return send(req, res, base, body, HTML, headers, vary, status === 200 && matches(req.headers['if-none-match'], page.etag), 0);
}

/** An RSC payload or a prefetched segment: sent as Next sends them (no ETag). */
async function sendPayload(
  req: IncomingMessage,
  res: ServerResponse,
  base: readonly [string, string][],
  file: string,
  headers: [string, string][],
  vary: string,
): Promise<boolean> {
  const body = await readOrNull(file);
  if (!body) return false;
  return send(req, res, base, body, RSC, [...headers, ['Cache-Control', ONE_YEAR]], vary, false, 0);
}

/** One of the build's static files or public/'s, as Next's static server sends it. */
async function serveFile(req: IncomingMessage, res: ServerResponse, base: readonly [string, string][], file: File): Promise<boolean> {
  const body = await readOrNull(file.file);
  if (!body) return false;
  const headers: [string, string][] = [
    ['Cache-Control', file.cacheControl],
    ['Last-Modified', file.modified],
    ['ETag', file.etag],
  ];
  const since = req.headers['if-modified-since'];
  const fresh =
    req.headers['if-none-match'] !== undefined
      ? matches(req.headers['if-none-match'], file.etag)
      : since !== undefined && Date.parse(since) >= Date.parse(file.modified);
  return send(req, res, base, body, file.type, headers, undefined, fresh, MIN_COMPRESSED_FILE);
}

async function send(
  req: IncomingMessage,
  res: ServerResponse,
  base: readonly [string, string][],
  body: Buffer,
  type: string,
  headers: [string, string][],
  vary: string | undefined,
  notModified: boolean,
  minCompressed: number,
): Promise<boolean> {
  const compress = req.method === 'GET' && !notModified && body.length >= minCompressed && COMPRESSIBLE.test(type) && takesGzip(req);
  const sent = compress ? await gzip(body) : body;
  for (const [k, v] of base) res.setHeader(k, v);
  for (const [k, v] of headers) res.appendHeader(k, v);
  if (COMPRESSIBLE.test(type)) res.setHeader('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  else if (vary) res.setHeader('Vary', vary);
  if (notModified) {
    res.statusCode = 304;
    res.end();
    return true;
  }
  res.setHeader('Content-Type', type);
  if (compress) res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Length', sent.length);
  res.end(req.method === 'HEAD' ? undefined : sent);
  return true;
}

/** Whether Accept-Encoding takes gzip (named, or `*`, without q=0). */
export function takesGzip(req: IncomingMessage): boolean {
  const accept = req.headers['accept-encoding'];
  if (typeof accept !== 'string') return false;
  let star = false;
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
    const accepted = !q || Number(q[1]) > 0;
    if (name === 'gzip') return accepted;
    if (name === '*') star = accepted;
  }
  return star;
}

/** Whether If-None-Match names `etag` (weakly compared, as Next and `send` do), or is `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const weak = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || weak(t) === weak(etag));
}

/** A path with its escapes decoded (a file's name may be sent escaped or not); as it is if it has a malformed one. */
function decoded(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** Every file under `dir`, by its decoded URL (`prefix` + its path there), with a type this knows. */
function listFiles(dir: string, prefix: string, cacheControl: string, into: Map<string, File>) {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    const type = TYPES[path.extname(e.name).toLowerCase()];
    if (!type) continue;
    const file = path.join(e.parentPath, e.name);
    const stat = fs.statSync(file);
    const url = `${prefix}/${path.relative(dir, file).split(path.sep).join('/')}`;
    // `send`'s validators: a weak ETag of the size and the modification time.
    const etag = `W/"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}"`;
    into.set(url, { file, type, etag, modified: stat.mtime.toUTCString(), cacheControl });
  }
}

/** Next's ETag of a body (its own function, so that both answer alike); a hash of ours if that cannot be loaded. */
function loadETag(nextDir: string): (body: string) => string {
  try {
    const { generateETag } = module.createRequire(path.join(nextDir, '..', 'package.json'))('next/dist/server/lib/etag') as {
      generateETag: (body: string, weak?: boolean) => string;
    };
    return (body) => generateETag(body);
  } catch {
    return (body) => `"${Buffer.from(body).length.toString(36)}-${zlib.crc32(body).toString(36)}"`;
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

const readOrNull = (file: string) => fs.promises.readFile(file).catch(() => null);
