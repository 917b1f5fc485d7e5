/**
 * Security headers of every reply, in two sets: a page's (a document a browser renders) and the API's
 * (JSON, event streams, the node agent's file: data, never rendered).
 *
 * A page's scripts and styles need 'unsafe-inline': the pages are prerendered, so Next's inline
 * bootstrap cannot carry a per-request nonce. Everything else is same-origin only; no framing; no
 * referrer (secrets travel in query strings, as the spec has it). The development server
 * (`npm run dev`) also allows eval: React's development build evaluates code to rebuild its call
 * stacks; its production build never does.
 */
const PAGE_CSP = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${process.env.NODE_ENV === 'development' ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Those of a page (next.config.ts adds them to every page; the server to the pages it serves itself). */
export const PAGE_SECURITY_HEADERS = [
  { key: 'Content-Security-Policy', value: PAGE_CSP },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'no-referrer' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=()' },
];

/**
 * Those of an API reply, as OWASP's REST Security Cheat Sheet has them: a reply opened as a document
 * loads nothing and is framed by no one, its type is never sniffed, and it sends no referrer. The
 * page-only headers (the opener policy, the permissions policy) say nothing to data; a page's policy,
 * six times as long, would be sent with every completion for nothing (a streamed completion's head was
 * 850 bytes, a bare proxy's 164: docs/benchmarks.md).
 */
export const API_SECURITY_HEADERS = [
  { key: 'Content-Security-Policy', value: "default-src 'none'; frame-ancestors 'none'" },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'no-referrer' },
  { key: 'X-Frame-Options', value: 'DENY' },
];

/** The API's paths, in the form of next.config's `source` (the path-to-regexp Next matches with). */
export const API_SOURCES = ['/api/:path*', '/organization/api/:path*'];
/** Every other path: a page, or one of the build's files. */
export const PAGE_SOURCE = '/:path((?!api(?:/|$)|organization/api(?:/|$)).*)';
