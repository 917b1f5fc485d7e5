'use client';

import dynamic from 'next/dynamic';

/** Scalar is large: loaded on this page only, in the browser. */
const ScalarReference = dynamic(() => import('./scalar-reference'), {
  ssr: false,
  loading: () => <div aria-label="Loading the API reference" className="h-96 animate-pulse rounded-lg bg-slate-200" />,
});

export function ApiDocs() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">API reference</h1>
        <p className="text-sm text-slate-600">
          Every endpoint, from the OpenAPI document{' '}
          <a className="text-indigo-700 underline" href="/api/openapi.json">
            /api/openapi.json
          </a>
          : fields, examples, errors and code to call it. &ldquo;Test request&rdquo; sends a real one (give it a key under Authentication).
        </p>
      </div>
      <ScalarReference />
    </div>
  );
}
