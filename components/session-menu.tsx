'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, getDemoCredentials } from '@/lib/client/api';
import { signIn, signOut, type SessionInfo, useSessionChanged } from '@/lib/client/session';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/field';

const when = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The sign-in form: an org token or an admin token, exchanged for a session cookie; the token is not kept. */
export function SignInForm({ onDone }: { onDone?: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const changed = useSessionChanged();
  const demo = useQuery({ queryKey: ['demo-credentials'], queryFn: getDemoCredentials, retry: false, staleTime: Infinity });

  async function go(value: string) {
    setBusy(true);
    setError(null);
    try {
      await signIn(value);
      setToken('');
      await changed();
      onDone?.();
    } catch (e) {
      setError(
        e instanceof ApiError ? (e.status === 401 ? 'This server does not know that token, or it was revoked.' : e.explanation) : String(e),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      aria-label="Sign in"
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        void go(token);
      }}
    >
      <p className="text-sm text-slate-600">
        Sign in with an <strong>organization token</strong> (<code>org_…</code>) or, as the instance administrator, an{' '}
        <strong>admin token</strong> (<code>adm_…</code>, from <code>npm run admin -- admin-token create</code>). The token is exchanged for
        a session; this browser keeps neither.
      </p>
      <label className="block">
        <span className="text-sm font-medium text-slate-800">Token</span>
        <input
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="org_… or adm_…"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          className={`mt-1 font-mono ${inputClass}`}
        />
      </label>
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" disabled={busy || !token.trim()}>
          Sign in
        </Button>
        {demo.data && (
          <Button disabled={busy} onClick={() => void go(demo.data.org_token)}>
            Sign in to the demo organization
          </Button>
        )}
      </div>
    </form>
  );
}

/** Who is signed in, until when, and the ways out. */
export function SessionPanel({ session, onDone }: { session: SessionInfo; onDone?: () => void }) {
  const changed = useSessionChanged();
  const [error, setError] = useState<string | null>(null);
  async function out(everywhere: boolean) {
    try {
      await signOut(everywhere);
    } catch (e) {
      setError(e instanceof ApiError ? e.explanation : String(e));
      return;
    }
    await changed();
    onDone?.();
  }
  return (
    <section aria-label="Session" className="space-y-3 text-sm">
      <p>
        Signed in as{' '}
        <strong data-testid="signed-in-as">{session.role === 'admin' ? 'the instance administrator' : session.organization?.name}</strong>.
      </p>
      <p className="text-slate-600">The session ends after 12 hours without use, and at the latest on {when(session.expires_at)}.</p>
      {error && (
        <p role="alert" className="text-rose-700">
          {error}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button variant="primary" onClick={() => void out(false)}>
          Sign out
        </Button>
        <Button onClick={() => void out(true)}>Sign out everywhere</Button>
      </div>
      <p className="text-xs text-slate-500">
        “Everywhere” ends every session of {session.role === 'admin' ? 'this admin token' : 'this organization'}, in every browser.
      </p>
    </section>
  );
}
