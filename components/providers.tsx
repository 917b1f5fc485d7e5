'use client';

import { isServer, QueryClient, QueryClientProvider } from '@tanstack/react-query';

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // 4xx answers will not change by retrying; network failures and 5xx may.
        retry: (count, error) =>
          count < 2 && !((error as { status?: number }).status! >= 400 && (error as { status?: number }).status! < 500),
      },
    },
  });
}

let browserQueryClient: QueryClient | undefined;

/** One client per request on the server, one per browser tab in the browser. */
function getQueryClient() {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

export function Providers({ children }: { children: React.ReactNode }) {
  return <QueryClientProvider client={getQueryClient()}>{children}</QueryClientProvider>;
}
