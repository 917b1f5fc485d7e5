'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/field';

/** The message box: Enter sends, Shift+Enter is a new line; Stop while a reply streams; Regenerate. */
export function Composer({
  busy,
  canRegenerate,
  onSend,
  onStop,
  onRegenerate,
}: {
  busy: boolean;
  canRegenerate: boolean;
  /** False when the message was not taken (the draft is kept). */
  onSend: (text: string) => boolean;
  onStop: () => void;
  onRegenerate: () => void;
}) {
  const [draft, setDraft] = useState('');
  const send = () => {
    if (onSend(draft)) setDraft('');
  };
  return (
    <form
      className="flex gap-2 border-t border-slate-200 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <textarea
        aria-label="Message"
        rows={2}
        value={draft}
        placeholder="Message (Enter to send, Shift+Enter for a new line, Esc to stop)"
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            send();
          }
        }}
        className={`${inputClass} resize-y`}
      />
      <div className="flex flex-col gap-1">
        {busy ? (
          <Button variant="danger" onClick={onStop}>
            Stop
          </Button>
        ) : (
          <Button type="submit" variant="primary" disabled={!draft.trim()}>
            Send
          </Button>
        )}
        <Button size="sm" onClick={onRegenerate} disabled={busy || !canRegenerate}>
          Regenerate
        </Button>
      </div>
    </form>
  );
}
