import { Suspense } from 'react';
import { Providers } from '@/components/providers';
import { Shell } from '@/components/shell';

export default function DashboardLayout({ children }: { children: React.ReactNode }) {
  return (
    <Providers>
      {/* Pages read their view from the URL (useSearchParams): rendered in the browser, below this boundary. */}
      <Shell>
        <Suspense>{children}</Suspense>
      </Shell>
    </Providers>
  );
}
