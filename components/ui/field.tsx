'use client';

import Link from 'next/link';
import { useSession } from '@/lib/client/session';

export const inputClass =
  'w-full rounded-md border border-slate-300 bg-surface px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 aria-[invalid=true]:border-rose-400';

/** A select (or an input) as wide as its content, not the row. */
export const selectClass = inputClass.replace('w-full', 'w-auto');

/** A labelled form field with an optional hint and error. */
export function Field({ label, hint, error, children }: { label: string; hint?: string; error?: string; children: React.ReactNode }) {
  return (
    <label className="block">
      <span className="flex items-baseline justify-between text-sm font-medium text-slate-800">
        {label}
        {hint && <span className="text-xs font-normal text-slate-500">{hint}</span>}
      </span>
      <span className="mt-1 flex gap-2">{children}</span>
      {error && (
        <span role="alert" className="mt-1 block text-xs text-rose-700">
          {error}
        </span>
      )}
    </label>
  );
}

/**
 * What a page shows to someone who cannot use it: signed out, the way to sign in; signed in as the
 * other principal, what they are signed in as and that the page is the other's (never "sign in" to
 * someone who is). `children` follow the sentence (a further condition and where to meet it).
 */
export function NeedsCredential({ what, children }: { what: string; children?: React.ReactNode }) {
  const { session, loading } = useSession();
  if (loading) return null; // not "sign in" to someone whose session is on its way
  const who = session
    ? session.role === 'admin'
      ? 'the instance administrator'
      : (session.organization?.name ?? 'an organization')
    : null;
  return (
    <div role="note" className="rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900">
      {who ? (
        <>
          This page needs {what}; you are signed in as <strong>{who}</strong>
          {children}. The{' '}
          <Link href="/" className="underline">
            home page
          </Link>{' '}
          lists what you can open.
        </>
      ) : (
        <>
          This page needs {what}. Use <strong>Sign in</strong> at the top right{children}.
        </>
      )}
    </div>
  );
}
