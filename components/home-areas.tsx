'use client';

import Link from 'next/link';
import { useSession } from '@/lib/client/session';

type Area = { href: string; title: string; text: string };

const ORG_AREAS: Area[] = [
  {
    href: '/playground',
    title: 'Chat playground',
    text: 'Stream chat completions from the built-in guide model or the providers behind Triad.',
  },
  {
    href: '/stats',
    title: 'Partner statistics',
    text: 'Your partners’ nodes, their connection status, uptime and earnings over any range.',
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
  { href: '/partners', title: 'Partners and nodes', text: 'Partners, their secrets, and the nodes that connect with the node agent.' },
  {
    href: '/usage',
    title: 'Usage',
    text: 'Requests, tokens, errors and latency per key and model, hourly or daily, as charts, a table or CSV.',
  },
  {
    href: '/requests',
    title: 'Requests',
    text: 'Each completion: its API, status, who served it, latency, time to first token, tokens, cost and trace id; filters and CSV.',
  },
  { href: '/audit', title: 'Audit log', text: 'Every change made in the console or the API: who, what, when and from where.' },
  { href: '/docs', title: 'API reference', text: 'Every endpoint with its fields, errors and examples; try one from the page.' },
];

const ADMIN_AREAS: Area[] = [
  { href: '/organizations', title: 'Organizations', text: 'Create organizations, hand out their first token, suspend and resume them.' },
  {
    href: '/providers',
    title: 'Providers',
    text: 'The model servers and nodes behind the chat API: health, share of the traffic, error rate, weights and prices.',
  },
  { href: '/usage', title: 'Usage', text: 'The whole instance’s requests, tokens, errors and latency, per organization, key or model.' },
  { href: '/audit', title: 'Audit log', text: 'Every change on the instance: who, what, when and from where.' },
  { href: '/docs', title: 'API reference', text: 'Every endpoint with its fields, errors and examples.' },
];

/** The home page's areas: what the one signed in can open (an organization's, or the administrator's). */
export function HomeAreas() {
  const { session, loading } = useSession();
  if (loading) return <div className="h-40 animate-pulse rounded-lg bg-slate-200" />;
  const areas = session?.role === 'admin' ? ADMIN_AREAS : ORG_AREAS;
  return (
    <div className="space-y-2">
      {!session && (
        <p className="text-sm text-slate-600">Sign in with an organization’s token to open these (an admin token opens the instance’s).</p>
      )}
      <nav aria-label="Areas" className="grid gap-4 sm:grid-cols-2 md:grid-cols-3">
        {areas.map((a) => (
          <Link key={a.href} href={a.href} className="rounded-lg border border-slate-200 bg-surface p-4 shadow-sm hover:border-indigo-300">
            <h2 className="font-semibold text-slate-900">{a.title}</h2>
            <p className="mt-1 text-sm text-slate-600">{a.text}</p>
          </Link>
        ))}
      </nav>
    </div>
  );
}
