import type { NextConfig } from 'next';
import { SECURITY_HEADERS } from './lib/http/security-headers';

const nextConfig: NextConfig = {
  headers: async () => [{ source: '/:path*', headers: SECURITY_HEADERS }],
  // Native/WASM database drivers are loaded from node_modules at run time, never bundled.
  serverExternalPackages: ['@electric-sql/pglite', 'pg', 'ioredis', 'rate-limiter-flexible', 'gpt-tokenizer', 'pino'],
  poweredByHeader: false,
  // The app's own sources; tests and tools are checked by `npm run typecheck`.
  typescript: { tsconfigPath: 'tsconfig.build.json' },
  reactStrictMode: true,
};

export default nextConfig;
