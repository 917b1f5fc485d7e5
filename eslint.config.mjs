import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

const config = [
  ...nextVitals,
  ...nextTs,
  // `const { command, ...fields } = cmd`: the names taken out to leave the rest are not unused.
  { rules: { '@typescript-eslint/no-unused-vars': ['warn', { ignoreRestSiblings: true }] } },
  // Playwright fixtures call `use`, which is not React's hook.
  { files: ['e2e/**'], rules: { 'react-hooks/rules-of-hooks': 'off' } },
  // No getters or setters in object literals on the server side: V8 makes such a literal a
  // dictionary-mode object with an accessor of its own, and what the accessor closes over survived
  // young-generation collections; a getter that read the request kept each whole request alive
  // through them (8 KB a chat completion, scavenges of 5-8 ms: lib/http/request-view.ts). Use a class.
  {
    files: ['lib/**/*.ts', 'app/api/**/*.ts', 'scripts/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > Property[kind=/^(get|set)$/]',
          message:
            'No accessor in an object literal on the server (it keeps what it closes over alive past young-generation collections): use a class, or a method.',
        },
      ],
    },
  },
  {
    ignores: ['.next/**', 'node_modules/**', '.tools/**', 'data/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', 'dist/**'],
  },
];

export default config;
