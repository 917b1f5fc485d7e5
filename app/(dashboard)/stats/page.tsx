import { FleetView } from '@/components/stats/fleet-view';

export const metadata = { title: 'Stats' };

export default function StatsPage() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Stats</h1>
        <p className="text-slate-600">Your partner&apos;s nodes: connection status, uptime and earnings.</p>
      </div>
      <FleetView />
    </div>
  );
}
