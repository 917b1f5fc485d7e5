import { NodeView } from '@/components/stats/node-view';

export const metadata = { title: 'Node' };

export default async function NodePage({ params }: { params: Promise<{ partnerNodeId: string }> }) {
  const { partnerNodeId } = await params;
  return <NodeView partnerNodeId={decodeURIComponent(partnerNodeId)} />;
}
