import { RequireRole } from '@/components/console/common';
import { PartnersPage } from '@/components/console/partners-page';

export const metadata = { title: 'Partners' };

export default function Page() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Partners</h1>
        <p className="text-slate-600">Partners of your organization, their secrets and their nodes.</p>
      </div>
      <RequireRole role="org">
        <PartnersPage />
      </RequireRole>
    </div>
  );
}
