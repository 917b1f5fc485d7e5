import { RequireRole } from '@/components/console/common';
import { ProvidersPage } from '@/components/console/providers-page';

export const metadata = { title: 'Providers' };

export default function Page() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Providers</h1>
        <p className="text-slate-600">The model servers behind the chat API, their health and their share of the traffic.</p>
      </div>
      <RequireRole role="admin">
        <ProvidersPage />
      </RequireRole>
    </div>
  );
}
