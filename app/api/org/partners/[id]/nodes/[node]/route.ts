import { audit } from '@/lib/console/audit';
import { renameNode } from '@/lib/console/org';
import { nodeParams, renameNodeBody } from '@/lib/console/schema';
import { notFound } from '@/lib/errors/link';
import { json, route } from '@/lib/http/route';

/** Renames a node (its public name in the statistics). */
export const PATCH = route(
  {
    auth: 'orgToken',
    params: nodeParams,
    body: renameNodeBody,
    doc: {
      summary: "Rename a partner's node (its public name)",
      tag: 'Console',
      beyond: true,
      replies: { 200: { description: '{data: {partner_node_id, name}}' } },
      errors: [400, 401, 403, 404, 429],
    },
  },
  async ({ db, org, params, body, actor, address }) => {
    const node = await renameNode(db, org.id, { partnerId: params.id, externalId: params.node, name: body.name });
    if (!node) throw notFound('no node of that partner of this organization has that id');
    await audit(db, {
      orgId: org.id,
      actor,
      action: 'node.rename',
      object: `node:${params.id}/${params.node}`,
      detail: { name: body.name },
      address,
    });
    return json({ data: { partner_node_id: node.id, name: node.name } });
  },
);
