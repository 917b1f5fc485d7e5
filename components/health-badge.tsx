'use client';

import { useQuery } from '@tanstack/react-query';
import { getHealth } from '@/lib/client/api';

export function HealthBadge() {
  const health = useQuery({ queryKey: ['health'], queryFn: getHealth, refetchInterval: 30_000 });
  if (health.isPending) return <span className="text-sm text-slate-500">Checking server…</span>;
  const ok = health.data?.database.reachable;
  return (
    <span data-testid="health" className={`inline-flex items-center gap-2 text-sm ${ok ? 'text-emerald-700' : 'text-rose-700'}`}>
      <span aria-hidden className={`h-2 w-2 rounded-full ${ok ? 'bg-emerald-500' : 'bg-rose-500'}`} />
      {ok ? `Server healthy · ${health.data?.database.driver === 'postgres' ? 'PostgreSQL' : 'embedded PGlite'}` : 'Database unreachable'}
    </span>
  );
}
