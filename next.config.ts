import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native/WASM database drivers are loaded from node_modules at run time, never bundled.
  serverExternalPackages: ['@electric-sql/pglite', 'pg', 'ioredis', 'rate-limiter-flexible', 'gpt-tokenizer'],
  poweredByHeader: false,
  // The app's own sources; tests and tools are checked by `npm run typecheck`.
  typescript: { tsconfigPath: 'tsconfig.build.json' },
  reactStrictMode: true,
};

export default nextConfig;
