'use client';

import { useSession } from '@/lib/client/session';
import { SessionPanel, SignInForm } from './session-menu';

/** The home page's sign-in (or session) card. */
export function HomeSession() {
  const { session, loading } = useSession();
  if (loading) return null;
  return (
    <div className="max-w-xl rounded-lg border border-slate-200 bg-surface p-6 shadow-sm">
      <h2 className="mb-3 text-lg font-semibold">{session ? 'Session' : 'Sign in'}</h2>
      {session ? <SessionPanel session={session} /> : <SignInForm />}
    </div>
  );
}
