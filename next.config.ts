import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Native/WASM database drivers are loaded from node_modules at run time, never bundled.
  serverExternalPackages: ['@electric-sql/pglite', 'pg'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
