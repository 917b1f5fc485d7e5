'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useCredentials } from '@/lib/client/credentials';
import { CredentialsPanel } from './credentials-panel';

const NAV = [
  { href: '/playground', label: 'Playground' },
  { href: '/stats', label: 'Stats' },
  { href: '/aliases', label: 'Aliases' },
  { href: '/docs', label: 'API' },
];

export function Shell({ children }: { children: React.ReactNode }) {
  const pathname = usePathname();
  const credentials = useCredentials();
  const [open, setOpen] = useState(false);
  const configured = [credentials.apiKey, credentials.orgToken, credentials.partnerSecret].filter(Boolean).length;

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <Link href="/" className="text-lg font-semibold tracking-tight text-indigo-700">
            Triad
          </Link>
          {/* On a phone the links take a row of their own, below the name and the credentials button. */}
          <nav aria-label="Main" className="order-last flex w-full gap-1 overflow-x-auto sm:order-none sm:w-auto">
            {NAV.map((item) => {
              const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  aria-current={active ? 'page' : undefined}
                  className={`rounded-md px-3 py-1.5 text-sm font-medium ${active ? 'bg-indigo-50 text-indigo-700' : 'text-slate-600 hover:bg-slate-100'}`}
                >
                  {item.label}
                </Link>
              );
            })}
          </nav>
          <button
            type="button"
            onClick={() => setOpen(true)}
            className="ml-auto flex items-center gap-2 rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100"
          >
            <span aria-hidden className={`h-2 w-2 rounded-full ${configured ? 'bg-emerald-500' : 'bg-amber-400'}`} />
            Credentials
            <span className="text-xs text-slate-500">{configured}/3</span>
          </button>
        </div>
      </header>
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-6">{children}</main>
      {open && (
        <div className="fixed inset-0 z-50 flex justify-end bg-slate-900/30" onClick={() => setOpen(false)}>
          <div
            role="dialog"
            aria-modal="true"
            aria-labelledby="credentials-title"
            className="h-full w-full max-w-md overflow-y-auto bg-white p-6 shadow-xl"
            onClick={(e) => e.stopPropagation()}
          >
            <div className="mb-4 flex items-center justify-between">
              <h2 id="credentials-title" className="text-lg font-semibold">
                Credentials
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
            <CredentialsPanel onDone={() => setOpen(false)} />
          </div>
        </div>
      )}
    </div>
  );
}
