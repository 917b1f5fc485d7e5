import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { nodes } from '@/lib/db/schema';

export type RegisterNodeInput = { partnerId: string; externalId: string; name?: string; ip?: string };

/** Registers a node under a partner; registering an existing `externalId` again returns it unchanged. */
export async function registerNode(db: Db, input: RegisterNodeInput) {
  const [created] = await db
    .insert(nodes)
    .values({
      partnerId: input.partnerId,
      externalId: input.externalId,
      publicId: `nd_${randomBytes(8).toString('hex')}`,
      publicName: input.name ?? input.externalId,
      ip: input.ip ?? '',
    })
    .onConflictDoNothing({ target: [nodes.partnerId, nodes.externalId] })
    .returning();
  if (created) return { node: created, created: true };
  const existing = await db.query.nodes.findFirst({
    where: and(eq(nodes.partnerId, input.partnerId), eq(nodes.externalId, input.externalId)),
  });
  return { node: existing!, created: false };
}

/** A node registered without an address gets the one it was last seen connecting from (its agent's). */
export async function fillNodeAddress(db: Db, node: { id: number; ip: string }, address: string) {
  if (node.ip || !address) return;
  await db
    .update(nodes)
    .set({ ip: address })
    .where(and(eq(nodes.id, node.id), eq(nodes.ip, '')));
}
