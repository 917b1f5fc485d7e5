'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';
import { migrateStoredCredentials, useSession, useSessionChanged } from '@/lib/client/session';
import { SessionPanel, SignInForm } from './session-menu';
import { ThemeToggle } from './theme-toggle';

type Nav = { href: string; label: string };
const ORG_NAV: Nav[] = [
  { href: '/playground', label: 'Playground' },
  { href: '/stats', label: 'Stats' },
  { href: '/aliases', label: 'Aliases' },
  { href: '/keys', label: 'Keys' },
  { href: '/partners', label: 'Partners' },
  { href: '/usage', label: 'Usage' },
  { href: '/requests', label: 'Requests' },
  { href: '/audit', label: 'Audit' },
  { href: '/docs', label: 'API' },
];
const ADMIN_NAV: Nav[] = [
  { href: '/organizations', label: 'Organizations' },
  { href: '/providers', label: 'Providers' },
  { href: '/usage', label: 'Usage' },
  { href: '/audit', label: 'Audit' },
  { href: '/docs', label: 'API' },
];
const SIGNED_OUT_NAV: Nav[] = [
  { href: '/playground', label: 'Playground' },
  { href: '/stats', label: 'Stats' },
  { href: '/aliases', label: 'Aliases' },
  { href: '/docs', label: 'API' },
];

export function Shell({ children }: { children: React.ReactNode }) {
  const pathname = usePathname();
  const { session, loading } = useSession();
  const changed = useSessionChanged();
  const [open, setOpen] = useState(false);
  const [menu, setMenu] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const nav = session?.role === 'admin' ? ADMIN_NAV : session ? ORG_NAV : SIGNED_OUT_NAV;

  // Tokens an earlier version kept in localStorage are moved into a session and removed.
  useEffect(() => {
    if (loading) return;
    void migrateStoredCredentials(!!session).then(async (result) => {
      if (result === 'none') return;
      if (result === 'signed-in') await changed();
      setNotice(
        result === 'signed-in'
          ? 'The organization token this browser had stored signed you in; it is no longer stored here.'
          : 'Tokens this browser had stored were removed; sign in instead.',
      );
    });
  }, [loading, session, changed]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b border-slate-200 bg-surface">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-2 px-4 py-3 sm:gap-x-4">
          <Link href="/" className="text-lg font-semibold tracking-tight text-indigo-700">
            Triad
          </Link>
          {/* Below 1024 px the links fold into a menu button; it opens them as a list of their own. */}
          <button
            type="button"
            aria-label="Menu"
            aria-expanded={menu}
            aria-controls="main-nav"
            onClick={() => setMenu(!menu)}
            className="rounded-md border border-slate-300 px-2.5 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 lg:hidden"
          >
            <span aria-hidden>{menu ? '✕' : '☰'}</span>
            <span aria-hidden className="ml-1 hidden sm:inline">
              Menu
            </span>
          </button>
          <nav
            id="main-nav"
            aria-label="Main"
            className={`${menu ? 'flex' : 'hidden'} order-last w-full flex-col gap-1 lg:order-none lg:flex lg:w-auto lg:flex-row`}
          >
            {nav.map((item) => {
              const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  onClick={() => setMenu(false)}
                  aria-current={active ? 'page' : undefined}
                  className={`shrink-0 rounded-md px-3 py-2 text-sm font-medium lg:py-1.5 ${active ? 'bg-indigo-50 text-indigo-700' : 'text-slate-600 hover:bg-slate-100'}`}
                >
                  {item.label}
                </Link>
              );
            })}
          </nav>
          <div className="ml-auto flex min-w-0 items-center gap-2">
            <ThemeToggle />
            <button
              type="button"
              onClick={() => setOpen(true)}
              className="flex min-w-0 max-w-[11rem] items-center gap-2 rounded-md sm:max-w-[14rem] border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100"
            >
              <span aria-hidden className={`h-2 w-2 shrink-0 rounded-full ${session ? 'bg-emerald-500' : 'bg-amber-400'}`} />
              <span className="truncate">
                {session ? (session.role === 'admin' ? 'Administrator' : session.organization?.name) : 'Sign in'}
              </span>
            </button>
          </div>
        </div>
      </header>
      {notice && (
        <div role="status" className="border-b border-emerald-200 bg-emerald-50 px-4 py-2 text-center text-sm text-emerald-800">
          {notice}
        </div>
      )}
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-6">{children}</main>
      {open && (
        <div className="fixed inset-0 z-50 flex justify-end bg-black/40" onClick={() => setOpen(false)}>
          <div
            role="dialog"
            aria-modal="true"
            aria-labelledby="session-title"
            className="h-full w-full max-w-md overflow-y-auto bg-surface p-6 shadow-xl"
            onClick={(e) => e.stopPropagation()}
          >
            <div className="mb-4 flex items-center justify-between">
              <h2 id="session-title" className="text-lg font-semibold">
                {session ? 'Session' : 'Sign in'}
              </h2>
              <button
                type="button"
                aria-label="Close"
                onClick={() => setOpen(false)}
                className="rounded p-1 text-slate-500 hover:bg-slate-100"
              >
                ✕
              </button>
            </div>
            {session ? <SessionPanel session={session} onDone={() => setOpen(false)} /> : <SignInForm onDone={() => setOpen(false)} />}
          </div>
        </div>
      )}
    </div>
  );
}
