import { RequireRole } from '@/components/console/common';
import { RequestsPage } from '@/components/console/requests-page';

export const metadata = { title: 'Requests' };

export default function Page() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Requests</h1>
        <p className="text-slate-600">
          Each completion and embedding of your keys, newest first: the API it came by, who served it, its status, latency, tokens and cost,
          and its trace id. Kept 14 days by default; no prompt or reply text is stored.
        </p>
      </div>
      <RequireRole role="org">
        <RequestsPage />
      </RequireRole>
    </div>
  );
}
