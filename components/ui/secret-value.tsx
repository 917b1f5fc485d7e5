'use client';

import { useState } from 'react';
import { Button } from './button';
import { CopyButton } from './copy-button';

/** A secret shown masked until revealed, with a copy button. */
export function SecretValue({ label, value }: { label: string; value: string | null }) {
  const [shown, setShown] = useState(false);
  if (value === null) return <span className="text-sm text-slate-400">none</span>;
  return (
    <span className="inline-flex min-w-0 items-center gap-2">
      <code data-testid={`secret-${label}`} className="truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">
        {shown ? value : '•'.repeat(Math.min(value.length, 16))}
      </code>
      <Button size="sm" variant="ghost" aria-label={`${shown ? 'Hide' : 'Reveal'} ${label}`} onClick={() => setShown(!shown)}>
        {shown ? 'Hide' : 'Reveal'}
      </Button>
      <CopyButton value={value} label={`Copy ${label}`} />
    </span>
  );
}
