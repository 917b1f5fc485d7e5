'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { request } from '@/lib/client/api';
import { csrfHeaders } from '@/lib/client/api';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/field';

type Param = { name: string; in: string; required: boolean; schema: unknown };
type Operation = {
  tags: string[];
  summary: string;
  description?: string;
  security: Record<string, string[]>[];
  parameters: Param[];
  requestBody?: { content: { 'application/json': { schema: unknown } } };
  responses: Record<string, { description: string; content?: Record<string, { schema?: unknown }> }>;
  /** A WebSocket (answered 101): its protocol and frames; a browser's fetch cannot open it, so no "Try it". */
  'x-triad-websocket'?: { protocol: string; frames: unknown };
};
type Doc = { info: { title: string; description: string }; paths: Record<string, Record<string, Operation>> };

const METHOD_COLORS: Record<string, string> = {
  get: 'bg-sky-100 text-sky-800',
  post: 'bg-emerald-100 text-emerald-800',
  delete: 'bg-rose-100 text-rose-800',
};

/** A reference of every endpoint, read from /api/openapi.json, with a "Try it" that sends a real request. */
export function ApiReference() {
  const doc = useQuery({ queryKey: ['openapi'], queryFn: () => request<Doc>('/api/openapi.json'), staleTime: Infinity });
  if (doc.isPending) return <div className="h-40 animate-pulse rounded bg-slate-200" />;
  if (doc.isError) return <p role="alert">Could not load /api/openapi.json.</p>;
  const ops = Object.entries(doc.data.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );
  const tags = [...new Set(ops.map((o) => o.op.tags[0]!))];
  return (
    <div className="space-y-8">
      <p className="text-sm text-slate-600">
        {doc.data.info.description} The machine-readable document:{' '}
        <a className="text-indigo-700 underline" href="/api/openapi.json">
          /api/openapi.json
        </a>{' '}
        (OpenAPI 3.1).
      </p>
      {tags.map((tag) => (
        <section key={tag} aria-label={tag} className="space-y-3">
          <h2 className="text-lg font-semibold">{tag}</h2>
          {ops
            .filter((o) => o.op.tags[0] === tag)
            .map(({ path, method, op }) => (
              <OperationCard key={`${method} ${path}`} path={path} method={method} op={op} />
            ))}
        </section>
      ))}
    </div>
  );
}

function authOf(op: Operation): string {
  const schemes = op.security.flatMap((s) => Object.keys(s));
  if (!schemes.length) return 'none';
  return `${op.security.some((s) => !Object.keys(s).length) ? 'optional: ' : ''}${schemes.join(' or ')}`;
}

function OperationCard({ path, method, op }: { path: string; method: string; op: Operation }) {
  const [open, setOpen] = useState(false);
  // Sent with the console session's cookie (and its CSRF token); a token can be given in the field below.
  const [token, setToken] = useState('');
  const [target, setTarget] = useState(
    path.replace('{id}', 'abcdefghij') + (op.parameters.some((p) => p.name === 'secret') ? '?secret=' : ''),
  );
  const [body, setBody] = useState(op.requestBody ? '{\n  \n}' : '');
  const [result, setResult] = useState<{ status: number; text: string } | null>(null);

  async function send() {
    const res = await fetch(target, {
      method: method.toUpperCase(),
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : csrfHeaders()),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body || undefined,
    });
    const text = await res.text();
    let pretty = text;
    try {
      pretty = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // not JSON (a stream, metrics): show as it came
    }
    setResult({ status: res.status, text: pretty.slice(0, 20_000) });
  }

  return (
    <details className="rounded-lg border border-slate-200 bg-white" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary className="flex cursor-pointer flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2 sm:flex-nowrap">
        <span className={`w-16 rounded px-2 py-0.5 text-center text-xs font-semibold uppercase ${METHOD_COLORS[method] ?? ''}`}>
          {method}
        </span>
        <code className="min-w-0 font-mono text-sm [overflow-wrap:anywhere]">{path}</code>
        <span className="min-w-0 basis-full truncate text-sm text-slate-600 sm:ml-auto sm:basis-auto">{op.summary}</span>
      </summary>
      {open && (
        <div className="space-y-3 border-t border-slate-200 p-4 text-sm">
          {op.description && <p className="text-xs font-medium text-amber-700">{op.description}</p>}
          <p>
            <span className="font-medium">Auth:</span> {authOf(op)}
          </p>
          {op.parameters.length > 0 && (
            <table className="w-full text-left text-xs">
              <thead className="text-slate-500">
                <tr>
                  <th className="py-1 pr-3">Parameter</th>
                  <th className="pr-3">In</th>
                  <th className="pr-3">Required</th>
                  <th>Schema</th>
                </tr>
              </thead>
              <tbody>
                {op.parameters.map((p) => (
                  <tr key={p.name} className="border-t border-slate-100">
                    <td className="py-1 pr-3 align-top font-mono [overflow-wrap:anywhere]">{p.name}</td>
                    <td className="py-1 pr-3 align-top">{p.in}</td>
                    <td className="py-1 pr-3 align-top">{p.required ? 'yes' : 'no'}</td>
                    <td className="py-1 align-top font-mono [overflow-wrap:anywhere]">{JSON.stringify(p.schema)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {op.requestBody && (
            <div>
              <div className="font-medium">Request body</div>
              <pre className="max-h-64 overflow-auto rounded bg-slate-50 p-2 text-xs">
                {JSON.stringify(op.requestBody.content['application/json'].schema, null, 2)}
              </pre>
            </div>
          )}
          <div>
            <div className="font-medium">Responses</div>
            <ul className="text-xs">
              {Object.entries(op.responses).map(([status, r]) => (
                <li key={status}>
                  <span className={`font-mono font-semibold ${Number(status) < 400 ? 'text-emerald-700' : 'text-rose-700'}`}>{status}</span>{' '}
                  {r.description}
                </li>
              ))}
            </ul>
          </div>
          {op['x-triad-websocket'] ? (
            <div className="space-y-2 rounded-md bg-slate-50 p-3">
              <div className="font-medium">WebSocket frames ({op['x-triad-websocket'].protocol}, JSON text)</div>
              <pre className="max-h-64 overflow-auto rounded bg-white p-2 text-xs">
                {JSON.stringify(op['x-triad-websocket'].frames, null, 2)}
              </pre>
              <p className="text-xs text-slate-600">
                A WebSocket cannot be tried from this page: open it with the node agent,{' '}
                <a className="text-indigo-700 underline" href="/downloads/triad-node.mjs">
                  triad-node.mjs
                </a>{' '}
                (<code>node triad-node.mjs --help</code>).
              </p>
            </div>
          ) : (
            <div className="space-y-2 rounded-md bg-slate-50 p-3">
              <div className="font-medium">Try it (with your session, or a token given here)</div>
              <input
                aria-label="Bearer token"
                type="password"
                autoComplete="off"
                placeholder="optional: a token for Authorization: Bearer"
                value={token}
                onChange={(e) => setToken(e.target.value)}
                className={`${inputClass} font-mono`}
              />
              <input
                aria-label="Request URL"
                value={target}
                onChange={(e) => setTarget(e.target.value)}
                className={`${inputClass} font-mono`}
              />
              {op.requestBody && (
                <textarea
                  aria-label="Request body"
                  rows={5}
                  value={body}
                  onChange={(e) => setBody(e.target.value)}
                  className={`${inputClass} font-mono`}
                />
              )}
              <Button variant="primary" size="sm" onClick={() => void send()}>
                Send {method.toUpperCase()}
              </Button>
              {result && (
                <pre data-testid="try-response" className="max-h-80 overflow-auto rounded bg-slate-900 p-2 text-xs text-slate-100">
                  HTTP {result.status}
                  {'\n'}
                  {result.text}
                </pre>
              )}
            </div>
          )}
        </div>
      )}
    </details>
  );
}
