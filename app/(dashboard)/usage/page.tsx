import { UsagePage } from '@/components/console/usage-page';

export const metadata = { title: 'Usage' };

export default function Page() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Usage</h1>
        <p className="text-slate-600">
          Chat completions over time: requests, tokens, errors and latency — your organization’s keys, or the whole instance’s for the
          administrator.
        </p>
      </div>
      <UsagePage />
    </div>
  );
}
