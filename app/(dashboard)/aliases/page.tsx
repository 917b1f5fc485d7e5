export const metadata = { title: 'Aliases' };

export default function AliasesPage() {
  return (
    <div className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Aliases</h1>
      <p className="text-slate-600">Create, protect and share aliases.</p>
      <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-800">This page is not built yet.</p>
    </div>
  );
}
