export const metadata = { title: 'Stats' };

export default function StatsPage() {
  return (
    <div className="space-y-2">
      <h1 className="text-2xl font-semibold tracking-tight">Stats</h1>
      <p className="text-slate-600">Partner node statistics and uptime charts.</p>
      <p className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm text-amber-800">This page is not built yet.</p>
    </div>
  );
}
