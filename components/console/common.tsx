'use client';

import { useState } from 'react';
import { useSession } from '@/lib/client/session';
import { ApiError } from '@/lib/client/api';
import { Button } from '@/components/ui/button';
import { CardTable } from '@/components/ui/card-table';
import { CopyButton } from '@/components/ui/copy-button';
import { inputClass, NeedsCredential } from '@/components/ui/field';

export const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';

/** Renders its children for a session of `role` only; otherwise says what is needed. */
export function RequireRole({ role, children }: { role: 'org' | 'admin'; children: React.ReactNode }) {
  const { session, loading } = useSession();
  if (loading) return null;
  if (session?.role !== role)
    return (
      <NeedsCredential
        what={role === 'org' ? "an organization's session (its org token)" : "the instance administrator's session (an admin token)"}
      />
    );
  return <>{children}</>;
}

/** A credential shown once, right after it was made, with a copy button. */
export function ShownOnce({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div role="status" className="space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm">
      <p className="font-medium text-emerald-900">
        {label} — shown this once. Copy it now; Triad keeps only its hash.{note ? ` ${note}` : ''}
      </p>
      <div className="flex min-w-0 items-center gap-2">
        <code
          data-testid="shown-once"
          className="min-w-0 flex-1 truncate rounded bg-surface px-2 py-1 font-mono text-xs [overflow-wrap:anywhere]"
        >
          {value}
        </code>
        <CopyButton value={value} label={`Copy ${label}`} />
      </div>
    </div>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="rounded-md bg-rose-50 p-3 text-sm text-rose-800">
      {error instanceof ApiError ? error.explanation : String(error)}
    </p>
  );
}

/** A console table: cards on a phone, a table that scrolls inside its own box when wider (never the page). */
export function TableBox({ children, label }: { children: React.ReactNode; label: string }) {
  return (
    <CardTable label={label} className="sm:min-w-[36rem]">
      {children}
    </CardTable>
  );
}

/**
 * The console's "create by name" form: a name (and any further fields, as children), one button.
 * `onCreate` gets the trimmed name; the field empties once it resolves.
 */
export function NameForm({
  title,
  label = 'Name',
  field,
  button,
  onCreate,
  children,
}: {
  title: string;
  label?: string;
  field: string;
  button: string;
  onCreate: (name: string) => Promise<unknown>;
  children?: React.ReactNode;
}) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      aria-label={title}
      className="flex flex-wrap items-end gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        onCreate(name.trim())
          .then(() => setName(''))
          .catch(() => {}) // the caller shows the error
          .finally(() => setBusy(false));
      }}
    >
      {/* The name takes a row of its own on a phone, the other fields and the button the next; on a wider
          screen it grows, never below 12 rem (the fields after it wrap to a second row first). */}
      <label className="block w-full text-sm sm:w-auto sm:min-w-48 sm:flex-1">
        <span className="font-medium">{label}</span>
        <input
          name={field}
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          className={`${inputClass} mt-1`}
        />
      </label>
      {children}
      <Button type="submit" variant="primary" disabled={!name.trim() || busy}>
        {button}
      </Button>
    </form>
  );
}
