import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '@/lib/db/client';
import { nodes, partners } from '@/lib/db/schema';
import { syncProviders } from './pool';
import { ProviderError } from './store';

/*
 * Admission to the network (design §20), for the admin API and the CLI alike: an instance administrator
 * admits a node, or a partner as a whole (every node it has or will have), to serve every organization;
 * revoking makes it private again (its own organization only). This process routes by the change at
 * once; other instances check an admitted node against the database before each request they send it
 * (./router.ts), so a revocation holds from the next request everywhere. Requests in flight finish.
 */

const id = z.string().trim().min(1).max(200);
export const admissionSchema = z.strictObject({
  partner_id: id,
  /** One node of the partner; without it, the partner as a whole. */
  partner_node_id: id.optional(),
});
export type AdmissionRef = z.infer<typeof admissionSchema>;

export const admissionViewSchema = z.object({
  partner_id: z.string(),
  /** Null: the partner as a whole. */
  partner_node_id: z.string().nullable(),
  org_id: z.string(),
  network: z.enum(['private', 'admitted']),
  admitted_at: z.string().nullable(),
  admitted_by: z.string().nullable(),
});
export type AdmissionView = z.infer<typeof admissionViewSchema>;

/**
 * Admits (or, with `admit` false, revokes) a partner or one of its nodes; `actor` is who did it (an
 * audit actor, kept as `admitted_by`). Admitting again keeps the first admission's time and author.
 * Revoking a partner revokes its nodes' own admissions too. A node of a partner admitted as a whole
 * cannot be revoked alone (409): revoke the partner, then admit the nodes that should stay.
 */
export async function setAdmission(db: Db, ref: AdmissionRef, admit: boolean, actor: string): Promise<AdmissionView> {
  const partner = await db.query.partners.findFirst({ where: eq(partners.id, ref.partner_id) });
  if (!partner) throw new ProviderError('not_found', `no partner with id ${ref.partner_id}`);
  const at = admit ? new Date() : null;
  const by = admit ? actor : null;
  let view: AdmissionView;
  if (ref.partner_node_id === undefined) {
    const [row] = await db.transaction(async (tx) => {
      if (!admit) await tx.update(nodes).set({ admittedAt: null, admittedBy: null }).where(eq(nodes.partnerId, partner.id));
      const current = admit && partner.admittedAt ? { admittedAt: partner.admittedAt, admittedBy: partner.admittedBy } : null;
      return tx
        .update(partners)
        .set(current ?? { admittedAt: at, admittedBy: by })
        .where(eq(partners.id, partner.id))
        .returning({ admittedAt: partners.admittedAt, admittedBy: partners.admittedBy });
    });
    view = viewOf(partner, null, row!);
  } else {
    const node = await db.query.nodes.findFirst({
      where: and(eq(nodes.partnerId, partner.id), eq(nodes.externalId, ref.partner_node_id)),
    });
    if (!node) throw new ProviderError('not_found', `partner ${partner.id} has no node "${ref.partner_node_id}"`);
    if (!admit && partner.admittedAt)
      throw new ProviderError(
        'conflict',
        `partner ${partner.id} is admitted as a whole, with all its nodes: revoke the partner, then admit the nodes that should stay`,
      );
    const keep = admit && node.admittedAt ? { admittedAt: node.admittedAt, admittedBy: node.admittedBy } : null;
    const [row] = await db
      .update(nodes)
      .set(keep ?? { admittedAt: at, admittedBy: by })
      .where(eq(nodes.id, node.id))
      .returning({ admittedAt: nodes.admittedAt, admittedBy: nodes.admittedBy });
    // A node of a partner admitted as a whole reads as the partner's admission.
    view = viewOf(partner, node.externalId, partner.admittedAt ? partner : row!);
  }
  await syncProviders(db);
  return view;
}

function viewOf(
  partner: { id: string; orgId: string },
  node: string | null,
  a: { admittedAt: Date | null; admittedBy: string | null },
): AdmissionView {
  return {
    partner_id: partner.id,
    partner_node_id: node,
    org_id: partner.orgId,
    network: a.admittedAt ? 'admitted' : 'private',
    admitted_at: a.admittedAt?.toISOString() ?? null,
    admitted_by: a.admittedAt ? a.admittedBy : null,
  };
}

/** What the audit log keeps of an admission or a revocation (who and from where are the caller's). */
export function admissionAudit(view: AdmissionView, admit: boolean) {
  return {
    orgId: view.org_id,
    action: admit ? 'node.admit' : 'node.revoke',
    object: view.partner_node_id ? `node:${view.partner_id}/${view.partner_node_id}` : `partner:${view.partner_id}`,
    detail: { partner_id: view.partner_id, partner_node_id: view.partner_node_id },
  };
}
