import type { Metadata, Viewport } from 'next';
import { THEME_SCRIPT } from '@/lib/client/theme';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Triad', template: '%s · Triad' },
  description: 'Chat completions, partner node statistics and aliases — self-hosted.',
  icons: { icon: '/favicon.svg' },
};

export const viewport: Viewport = {
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#f8fafc' },
    { media: '(prefers-color-scheme: dark)', color: '#020617' },
  ],
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    // The theme script sets <html>'s class before React hydrates: the difference is expected.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">{children}</body>
    </html>
  );
}
