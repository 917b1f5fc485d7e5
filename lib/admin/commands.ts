import { z } from 'zod';
import {
  createApiKey,
  createOrganization,
  createOrgToken,
  createPartner,
  getPartner,
  NotFoundError,
  revokeApiKey,
  revokeOrgToken,
} from '@/lib/auth/credentials';
import type { Db } from '@/lib/db/client';
import { registerNode } from '@/lib/stats/nodes';
import { ensureDemo } from './demo';

/*
 * The admin commands, shared by the CLI (scripts/admin.ts) when it opens the database itself
 * and by POST /api/admin when it goes through a running server. One schema for both.
 */

const name = z.string().trim().min(1).max(200);
const id = z.string().trim().min(1).max(200);
export const adminCommandSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('org create'), name }),
  z.object({ command: z.literal('token create'), org: id, label: name.optional() }),
  z.object({ command: z.literal('token revoke'), token: z.string().min(1).max(500).optional(), id: id.optional() }),
  z.object({
    command: z.literal('apikey create'),
    org: id,
    rpm: z.coerce.number().int().min(1).max(1_000_000).optional(),
    label: name.optional(),
  }),
  z.object({ command: z.literal('apikey revoke'), key: z.string().min(1).max(500).optional(), id: id.optional() }),
  z.object({ command: z.literal('partner create'), org: id, name }),
  z.object({
    command: z.literal('node register'),
    partner: id,
    external_id: z.string().trim().min(1).max(200),
    name: name.optional(),
    ip: z.string().trim().max(64).optional(),
  }),
  z.object({ command: z.literal('demo') }),
]);
export type AdminCommand = z.infer<typeof adminCommandSchema>;
export const ADMIN_COMMANDS = adminCommandSchema.options.map((o) => o.shape.command.value);

export class AdminError extends Error {
  override name = 'AdminError';
}

function exactlyOne(ref: Record<string, string | undefined>, what: string) {
  if (Object.values(ref).filter(Boolean).length !== 1) {
    throw new AdminError(
      `give exactly one of ${Object.keys(ref)
        .map((k) => `--${k}`)
        .join(' or ')} (${what})`,
    );
  }
}

/** Runs one command and returns the JSON object the CLI prints with --json. */
export async function runAdminCommand(db: Db, cmd: AdminCommand): Promise<Record<string, unknown>> {
  try {
    switch (cmd.command) {
      case 'org create': {
        const org = await createOrganization(db, { name: cmd.name });
        const { token } = await createOrgToken(db, { orgId: org.id });
        return { org_id: org.id, org_token: token };
      }
      case 'token create':
        return { org_token: (await createOrgToken(db, { orgId: cmd.org, label: cmd.label })).token };
      case 'token revoke': {
        exactlyOne({ token: cmd.token, id: cmd.id }, 'the org token to revoke');
        if (!(await revokeOrgToken(db, cmd))) throw new AdminError('no such active org token');
        return { revoked: true };
      }
      case 'apikey create':
        return { api_key: (await createApiKey(db, { orgId: cmd.org, rpm: cmd.rpm, label: cmd.label })).key };
      case 'apikey revoke': {
        exactlyOne({ key: cmd.key, id: cmd.id }, 'the API key to revoke');
        if (!(await revokeApiKey(db, cmd))) throw new AdminError('no such active API key');
        return { revoked: true };
      }
      case 'partner create': {
        const p = await createPartner(db, { orgId: cmd.org, name: cmd.name });
        return { partner_id: p.id, partner_secret: p.secret };
      }
      case 'node register': {
        await getPartner(db, { partnerId: cmd.partner });
        const { node } = await registerNode(db, {
          partnerId: cmd.partner,
          externalId: cmd.external_id,
          name: cmd.name,
          ip: cmd.ip,
        });
        return { partner_node_id: node.externalId };
      }
      case 'demo': {
        const { credentials } = await ensureDemo(db);
        return credentials;
      }
    }
  } catch (e) {
    if (e instanceof NotFoundError) throw new AdminError(e.message);
    throw e;
  }
}
