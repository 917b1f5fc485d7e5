import type { NextConfig } from 'next';
import { PAGE_REWRITES } from './lib/http/page-rewrites';
import { API_SECURITY_HEADERS, API_SOURCES, PAGE_SECURITY_HEADERS, PAGE_SOURCE } from './lib/http/security-headers';

const nextConfig: NextConfig = {
  headers: async () => [
    { source: PAGE_SOURCE, headers: PAGE_SECURITY_HEADERS },
    ...API_SOURCES.map((source) => ({ source, headers: API_SECURITY_HEADERS })),
  ],
  // Every node's page is one prerendered page, which reads the node from the address: served from the
  // build like the others (lib/server/prerendered.ts), not rendered by Next at each request.
  rewrites: async () => PAGE_REWRITES,
  // Native/WASM database drivers are loaded from node_modules at run time, never bundled.
  serverExternalPackages: ['@electric-sql/pglite', 'pg', 'ioredis', 'rate-limiter-flexible', 'pino', 'undici'],
  poweredByHeader: false,
  // The app's own sources; tests and tools are checked by `npm run typecheck`.
  typescript: { tsconfigPath: 'tsconfig.build.json' },
  reactStrictMode: true,
  // npm run package copies the traced app (.next/standalone) into dist/triad (scripts/package.mjs).
  output: 'standalone',
  // Next's image optimizer (sharp and its libvips, 20 MB) serves nothing here: Triad has no next/image.
  // Nor does an earlier package (dist/triad) belong in the next. (Patterns match anywhere in a path:
  // 'dist/**' would take next/dist's files out too.)
  outputFileTracingExcludes: { '*': ['node_modules/sharp/**', 'node_modules/@img/**', 'dist/triad/**'] },
  // Next loads every page and route module at start by default. Here the API's busiest routes are served
  // past Next (lib/server/direct-routes.ts) and a gateway may never render a page: each module is loaded
  // when first asked for instead (about a tenth of a second for a page's first visit), which keeps the
  // start shorter and an idle server smaller (docs/benchmarks.md, "Ready in seconds, and idle memory").
  experimental: { preloadEntriesOnStart: false },
};

export default nextConfig;
