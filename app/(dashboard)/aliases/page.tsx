import { AliasManager } from '@/components/aliases/alias-manager';

export const metadata = { title: 'Aliases' };

export default function AliasesPage() {
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Aliases</h1>
        <p className="text-slate-600">Live and conference aliases of your organization: public, passcode-protected or token-protected.</p>
      </div>
      <AliasManager />
    </div>
  );
}
