import { RequireRole } from '@/components/console/common';
import { KeysPage } from '@/components/console/keys-page';

export const metadata = { title: 'Keys' };

export default function Page() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Keys and tokens</h1>
        <p className="text-slate-600">Your organization’s API keys and organization tokens. A new one is shown once.</p>
      </div>
      <RequireRole role="org">
        <KeysPage />
      </RequireRole>
    </div>
  );
}
