'use client';

import { useState } from 'react';
import { Button } from './button';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      size="sm"
      aria-label={label}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
        } catch {
          // Clipboard refused (insecure origin): fall back to a selection copy.
          const t = document.createElement('textarea');
          t.value = value;
          document.body.append(t);
          t.select();
          document.execCommand('copy');
          t.remove();
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}
