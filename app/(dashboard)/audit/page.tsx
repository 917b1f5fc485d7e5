import { AuditPage } from '@/components/console/audit-page';

export const metadata = { title: 'Audit log' };

export default function Page() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="text-slate-600">
          Every change made in the console or the admin API: who, what, when and from which address. It never holds a secret.
        </p>
      </div>
      <AuditPage />
    </div>
  );
}
