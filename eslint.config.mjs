import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const config = [
  ...nextVitals,
  ...nextTs,
  // Playwright fixtures call `use`, which is not React's hook.
  { files: ['e2e/**'], rules: { 'react-hooks/rules-of-hooks': 'off' } },
  {
    ignores: ['.next/**', 'node_modules/**', '.tools/**', 'data/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', 'dist/**'],
  },
];

export default config;
