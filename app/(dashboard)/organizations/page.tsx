import { RequireRole } from '@/components/console/common';
import { OrganizationsPage } from '@/components/console/organizations-page';

export const metadata = { title: 'Organizations' };

export default function Page() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Organizations</h1>
        <p className="text-slate-600">Every organization of this instance.</p>
      </div>
      <RequireRole role="admin">
        <OrganizationsPage />
      </RequireRole>
    </div>
  );
}
