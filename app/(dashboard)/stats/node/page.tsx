import { NodeAtPath } from '@/components/stats/node-view';

export const metadata = { title: 'Node' };

/**
 * Every node's page: /stats/<node> is rewritten here (next.config.ts), so that the page is prerendered
 * once, like the rest of the dashboard, and served from the build; the node is read from the address.
 */
export default function NodePage() {
  return <NodeAtPath />;
}
