import Link from 'next/link';
import { CredentialsPanel } from '@/components/credentials-panel';
import { HealthBadge } from '@/components/health-badge';

const AREAS = [
  {
    href: '/playground',
    title: 'Chat playground',
    text: 'Stream chat completions from the built-in guide model or any OpenAI-compatible upstream.',
    needs: 'API key',
  },
  {
    href: '/stats',
    title: 'Partner statistics',
    text: 'Your partner nodes, their connection status and uptime over any range of up to 14 days.',
    needs: 'Organization token + partner secret',
  },
  {
    href: '/aliases',
    title: 'Aliases',
    text: 'Create live and conference aliases, protect them with a passcode or a JWT, and generate tokens.',
    needs: 'Organization token',
  },
];

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
      <div className="grid gap-4 md:grid-cols-3">
        {AREAS.map((a) => (
          <Link key={a.href} href={a.href} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm hover:border-indigo-300">
            <h2 className="font-semibold text-slate-900">{a.title}</h2>
            <p className="mt-1 text-sm text-slate-600">{a.text}</p>
            <p className="mt-3 text-xs text-slate-500">Needs: {a.needs}</p>
          </Link>
        ))}
      </div>
      <div className="max-w-xl rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h2 className="mb-3 text-lg font-semibold">Credentials</h2>
        <CredentialsPanel />
      </div>
    </div>
  );
}
