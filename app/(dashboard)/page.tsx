import { HealthBadge } from '@/components/health-badge';
import { HomeAreas } from '@/components/home-areas';
import { HomeSession } from '@/components/home-session';

export default function HomePage() {
  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Triad</h1>
          <p className="text-slate-600">Chat completions, partner node statistics and aliases — on your own machine.</p>
        </div>
        <HealthBadge />
      </div>
      <HomeAreas />
      <HomeSession />
    </div>
  );
}
