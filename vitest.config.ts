import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(import.meta.dirname) } },
  test: {
    include: ['lib/**/*.test.ts', 'scripts/**/*.test.ts', 'components/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['scripts/unit-setup.mjs'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // PGlite instances are memory-hungry WASM; keep a bounded number of workers.
    maxWorkers: 2,
  },
});
