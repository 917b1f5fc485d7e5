'use client';

import { useState } from 'react';
import { Button } from './button';

/** Copies `value` (or what it returns, made when clicked); shows `text`, or "Copy". */
export function CopyButton({ value, label = 'Copy', text = 'Copy' }: { value: string | (() => string); label?: string; text?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      size="sm"
      aria-label={label}
      onClick={async () => {
        const copied = typeof value === 'function' ? value() : value;
        try {
          await navigator.clipboard.writeText(copied);
        } catch {
          // Clipboard refused (insecure origin): fall back to a selection copy.
          const t = document.createElement('textarea');
          t.value = copied;
          document.body.append(t);
          t.select();
          document.execCommand('copy');
          t.remove();
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? 'Copied' : text}
    </Button>
  );
}
