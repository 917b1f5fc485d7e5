'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { inputClass } from '@/components/ui/field';

/** The largest image the playground attaches (as a data: URL in the request body). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

/** The message box: Enter sends, Shift+Enter is a new line; images attached (for models that see); Stop while a reply streams; Regenerate. */
export function Composer({
  busy,
  blocked,
  canRegenerate,
  onSend,
  onStop,
  onRegenerate,
}: {
  busy: boolean;
  /** Why no message can be sent now (tool calls waiting for their results), or null. */
  blocked: string | null;
  canRegenerate: boolean;
  /** False when the message was not taken (the draft is kept). */
  onSend: (text: string, images: string[]) => boolean;
  onStop: () => void;
  onRegenerate: () => void;
}) {
  const [draft, setDraft] = useState('');
  const [images, setImages] = useState<string[]>([]);
  const [imageError, setImageError] = useState<string | null>(null);
  const send = () => {
    if (!onSend(draft, images)) return;
    setDraft('');
    setImages([]);
  };
  const attach = async (files: FileList | null) => {
    setImageError(null);
    for (const file of files ?? []) {
      if (!file.type.startsWith('image/')) setImageError(`${file.name} is not an image`);
      else if (file.size > MAX_IMAGE_BYTES) setImageError(`${file.name} is larger than 5 MB`);
      else {
        const url = await readAsDataUrl(file);
        setImages((now) => [...now, url]);
      }
    }
  };
  return (
    <form
      className="flex flex-wrap gap-2 border-t border-slate-200 p-3"
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
        className={`${inputClass} min-w-0 flex-1 resize-y`}
      />
      <div className="flex flex-col gap-1">
        {busy ? (
          <Button variant="danger" onClick={onStop}>
            Stop
          </Button>
        ) : (
          <Button type="submit" variant="primary" disabled={!!blocked || (!draft.trim() && !images.length)}>
            Send
          </Button>
        )}
        <Button size="sm" onClick={onRegenerate} disabled={busy || !canRegenerate}>
          Regenerate
        </Button>
      </div>
      {blocked && (
        <p data-testid="composer-blocked" className="w-full text-xs text-amber-700">
          {blocked}
        </p>
      )}
      <div className="flex w-full flex-wrap items-center gap-2 text-xs text-slate-500">
        <label className="cursor-pointer underline">
          Attach an image
          <input
            aria-label="Attach an image"
            type="file"
            accept="image/*"
            multiple
            className="sr-only"
            onChange={(e) => {
              void attach(e.target.files);
              e.target.value = '';
            }}
          />
        </label>
        <span>(≤ 5 MB, for models that see)</span>
        {images.map((url, i) => (
          <span key={i} className="flex items-center gap-1" data-testid="attached-image">
            {/* eslint-disable-next-line @next/next/no-img-element -- a data: URL the person attached */}
            <img src={url} alt={`image ${i + 1} to send`} className="h-8 rounded border border-slate-200" />
            <button type="button" aria-label={`Remove image ${i + 1}`} onClick={() => setImages(images.filter((_, j) => j !== i))}>
              ×
            </button>
          </span>
        ))}
        {imageError && (
          <span role="alert" className="text-rose-700">
            {imageError}
          </span>
        )}
      </div>
    </form>
  );
}
