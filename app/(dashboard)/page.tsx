import Link from 'next/link';
import { HealthBadge } from '@/components/health-badge';
import { HomeSession } from '@/components/home-session';

const AREAS = [
  {
    href: '/playground',
    title: 'Chat playground',
    text: 'Stream chat completions from the built-in guide model or the providers behind Triad.',
  },
  {
    href: '/stats',
    title: 'Partner statistics',
    text: 'Your partners’ nodes, their connection status and uptime over any range of up to 14 days.',
  },
  {
    href: '/aliases',
    title: 'Aliases',
    text: 'Create live and conference aliases, protect them with a passcode or a JWT, and generate tokens.',
  },
  {
    href: '/keys',
    title: 'Keys and tokens',
    text: 'Create API keys with a rate, see when each was last used, revoke them; the same for org tokens.',
  },
  {
    href: '/usage',
    title: 'Usage',
    text: 'Requests, tokens, errors and latency per key and model, hourly or daily, as charts, a table or CSV.',
  },
  { href: '/audit', title: 'Audit log', text: 'Every change made in the console or the admin API: who, what, when and from where.' },
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
          </Link>
        ))}
      </div>
      <HomeSession />
    </div>
  );
}
