import { ApiReference } from '@/components/docs/api-reference';

export const metadata = { title: 'API reference' };

export default function DocsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold tracking-tight">API reference</h1>
      <ApiReference />
    </div>
  );
}
