'use client';

import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { useState } from 'react';
import type { AliasWire } from '@/lib/aliases/schema';
import { tryRetrieveAlias } from '@/lib/client/aliases';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Field, inputClass } from '@/components/ui/field';

const PRESETS = [
  { label: '5 min', seconds: 300 },
  { label: '1 h', seconds: 3600 },
  { label: '1 day', seconds: 86_400 },
];

type Signed = { token: string; header: object; payload: { iat: number; expires_in: number } & Record<string, unknown> };

/**
 * Signs an alias JWT in the browser (HS256 with the alias jwt_secret, `iat` set, claims of interface 4.9),
 * shows it decoded, retrieves the alias with it, and gives curl and Node snippets for the same token.
 */
export function JwtGenerator({ alias }: { alias: AliasWire & { jwt_secret: string } }) {
  const [userId, setUserId] = useState('user-1');
  const [host, setHost] = useState(false);
  const [expiresIn, setExpiresIn] = useState(3600);
  const [signed, setSigned] = useState<Signed | null>(null);
  const [tried, setTried] = useState<{ status: number; body: unknown } | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function generate(e: React.FormEvent) {
    e.preventDefault();
    setTried(null);
    if (!userId.trim()) return setError('user_id must not be empty');
    if (!Number.isInteger(expiresIn) || expiresIn <= 0) return setError('expires_in must be a positive whole number of seconds');
    setError(null);
    const token = await new SignJWT({ alias: alias.id, user_id: userId.trim(), host, expires_in: expiresIn })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .sign(new TextEncoder().encode(alias.jwt_secret));
    setSigned({ token, header: decodeProtectedHeader(token), payload: decodeJwt(token) as Signed['payload'] });
  }

  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  const curl = signed ? `curl -H 'Authorization: Bearer ${signed.token}' '${origin}/organization/api/v1/alias/${alias.id}'` : '';
  const node = signed
    ? `// ALIAS_JWT_SECRET=<this alias's jwt_secret> node sign.mjs   (npm install jose)
import { SignJWT } from 'jose';

const token = await new SignJWT(${JSON.stringify({ alias: alias.id, user_id: signed.payload.user_id, host: signed.payload.host, expires_in: signed.payload.expires_in })})
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setIssuedAt(${signed.payload.iat})
  .sign(new TextEncoder().encode(process.env.ALIAS_JWT_SECRET));
console.log(token);`
    : '';

  return (
    <div className="space-y-4">
      <form onSubmit={generate} className="grid gap-4 sm:grid-cols-3">
        <Field label="user_id">
          <input name="user_id" value={userId} onChange={(e) => setUserId(e.target.value)} className={inputClass} />
        </Field>
        <Field label="expires_in (s)">
          <input
            name="expires_in"
            type="number"
            min={1}
            value={expiresIn}
            onChange={(e) => setExpiresIn(Number(e.target.value))}
            className={inputClass}
          />
        </Field>
        <div className="flex flex-col justify-end gap-2">
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={host} onChange={(e) => setHost(e.target.checked)} /> host (may see the stream key)
          </label>
        </div>
        <div className="flex flex-wrap items-center gap-2 sm:col-span-3">
          {PRESETS.map((p) => (
            <Button
              key={p.seconds}
              size="sm"
              variant={expiresIn === p.seconds ? 'primary' : 'secondary'}
              onClick={() => setExpiresIn(p.seconds)}
            >
              {p.label}
            </Button>
          ))}
          <Button type="submit" variant="primary" className="ml-auto">
            Generate token
          </Button>
        </div>
      </form>
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
      {signed && (
        <div className="space-y-3">
          <div>
            <div className="mb-1 flex items-center justify-between text-sm font-medium">
              Token <CopyButton value={signed.token} label="Copy token" />
            </div>
            <code data-testid="jwt-token" className="block break-all rounded bg-code p-3 font-mono text-xs text-code-accent">
              {signed.token}
            </code>
            <p className="mt-1 text-xs text-slate-600" data-testid="jwt-expiry">
              Issued {new Date(signed.payload.iat * 1000).toLocaleString()} · expires{' '}
              {new Date((signed.payload.iat + signed.payload.expires_in) * 1000).toLocaleString()}
            </p>
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            <pre className="overflow-x-auto rounded bg-slate-100 p-3 text-xs" aria-label="Decoded header">
              {JSON.stringify(signed.header, null, 2)}
            </pre>
            <pre className="overflow-x-auto rounded bg-slate-100 p-3 text-xs" aria-label="Decoded payload">
              {JSON.stringify(signed.payload, null, 2)}
            </pre>
          </div>
          <div className="flex items-center gap-3">
            <Button variant="primary" onClick={async () => setTried(await tryRetrieveAlias(alias.id, { jwt: signed.token }))}>
              Try it
            </Button>
            <span className="text-xs text-slate-500">GET /organization/api/v1/alias/{alias.id} with only this token</span>
          </div>
          {tried && (
            <div data-testid="try-result">
              <p className={`text-sm font-medium ${tried.status === 200 ? 'text-emerald-700' : 'text-rose-700'}`}>HTTP {tried.status}</p>
              <pre className="mt-1 overflow-x-auto rounded bg-slate-100 p-3 text-xs">{JSON.stringify(tried.body, null, 2)}</pre>
            </div>
          )}
          <Snippet title="curl" code={curl} />
          <Snippet title="Node (jose) — the same token" code={node} />
        </div>
      )}
    </div>
  );
}

function Snippet({ title, code }: { title: string; code: string }) {
  return (
    <div>
      <div className="mb-1 flex items-center justify-between text-sm font-medium">
        {title} <CopyButton value={code} label={`Copy ${title}`} />
      </div>
      <pre className="overflow-x-auto rounded bg-code p-3 text-xs text-code-fg">{code}</pre>
    </div>
  );
}
