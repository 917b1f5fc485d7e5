export const inputClass =
  'w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-200 aria-[invalid=true]:border-rose-400';

/** A labelled form field with an optional hint and error. */
export function Field({ label, hint, error, children }: { label: string; hint?: string; error?: string; children: React.ReactNode }) {
  return (
    <label className="block">
      <span className="flex items-baseline justify-between text-sm font-medium text-slate-800">
        {label}
        {hint && <span className="text-xs font-normal text-slate-500">{hint}</span>}
      </span>
      <span className="mt-1 flex gap-2">{children}</span>
      {error && (
        <span role="alert" className="mt-1 block text-xs text-rose-700">
          {error}
        </span>
      )}
    </label>
  );
}

/** What a page shows to someone not signed in (or signed in with the other role). */
export function NeedsCredential({ what, children }: { what: string; children?: React.ReactNode }) {
  return (
    <div className="rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900">
      This page needs {what}. Use <strong>Sign in</strong> at the top right{children}.
    </div>
  );
}
