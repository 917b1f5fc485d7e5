import { ApiDocs } from '@/components/docs/api-docs';

export const metadata = { title: 'API reference' };

export default function DocsPage() {
  return <ApiDocs />;
}
