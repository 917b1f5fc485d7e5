export function StatusBadge({ status }: { status: 'connected' | 'disconnected' }) {
  const connected = status === 'connected';
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ${connected ? 'bg-emerald-100 text-emerald-800' : 'bg-slate-200 text-slate-700'}`}
    >
      <span aria-hidden className={`h-1.5 w-1.5 rounded-full ${connected ? 'bg-emerald-500' : 'bg-slate-500'}`} />
      {status}
    </span>
  );
}
