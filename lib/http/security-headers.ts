/**
 * Security headers on every page and API reply. Scripts and styles need 'unsafe-inline': the pages
 * are prerendered, so Next's inline bootstrap cannot carry a per-request nonce. Everything else is
 * same-origin only; no framing; no referrer (secrets travel in query strings, as the spec has it).
 * The development server (`npm run dev`) also allows eval: React's development build evaluates code
 * to rebuild its call stacks; its production build never does.
 */
const CSP = [
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

/** next.config.ts adds them to every reply Next sends; the server (lib/server) to those it sends itself. */
export const SECURITY_HEADERS = [
  { key: 'Content-Security-Policy', value: CSP },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'no-referrer' },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=()' },
];
