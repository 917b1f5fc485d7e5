import { z } from 'zod';
import { audit } from '@/lib/console/audit';
import {
  createAdminToken,
  createApiKey,
  createOrganization,
  createOrgToken,
  createPartner,
  getOrganization,
  getPartner,
  NotFoundError,
  revokeAdminToken,
  revokeApiKey,
  revokeOrgToken,
  updateApiKey,
} from '@/lib/auth/credentials';
import { setOrgSettings } from '@/lib/console/org';
import { budgetPeriod, budgetUsd, keyExpiry, keyModels } from '@/lib/console/schema';
import { preferencesSchema } from '@/lib/chat/schema';
import path from 'node:path';
import type { Database, Db } from '@/lib/db/client';
import { BackupError, writeBackup } from './backup';
import { registerNode } from '@/lib/stats/nodes';
import { addProvider, changeProvider, deleteProvider, showProviders, testProvider } from '@/lib/providers/admin';
import { setAdmission } from '@/lib/providers/admission';
import { providerCreateSchema, providerName, providerUpdateFields } from '@/lib/providers/schema';
import { ProviderError } from '@/lib/providers/store';
import { demoNode, ensureDemo } from './demo';
import { wireStatistics } from '@/lib/stats/subscriptions';

/*
 * The admin commands, shared by the CLI (scripts/admin.ts) when it opens the database itself
 * and by POST /api/admin when it goes through a running server. One schema for both.
 */

const name = z.string().trim().min(1).max(200);
const id = z.string().trim().min(1).max(200);
/**
 * `--models a,b` (none: every model) and `--expires-at <unix s>` (none: never), as the console API takes
 * them; parsed again as values when the CLI hands the command to a running server.
 */
const cliModels = z.preprocess((v) => (v === 'none' ? null : typeof v === 'string' ? v.split(',') : v), keyModels.nullable());
const cliExpiry = z.preprocess((v) => (v === 'none' ? null : typeof v === 'string' ? Number(v) : v), keyExpiry.nullable());
/** `--budget-usd 0.10` (none: no budget) and `--budget-period day|week|month|total`. */
/** `--preferences '{"sort":"price"}'` (JSON, OpenRouter's provider object; none: no defaults). */
const cliPreferences = z
  .preprocess((v) => {
    if (v === 'none') return null;
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }, preferencesSchema.nullable())
  .optional();
const cliBudget = {
  budget_usd: z.preprocess((v) => (v === 'none' ? null : v), budgetUsd.nullable()).optional(),
  budget_period: budgetPeriod.optional(),
};
export const adminCommandSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('org create'), name }),
  z.object({ command: z.literal('token create'), org: id, label: name.optional() }),
  z.object({ command: z.literal('token revoke'), token: z.string().min(1).max(500).optional(), id: id.optional() }),
  z.object({
    command: z.literal('apikey create'),
    org: id,
    rpm: z.coerce.number().int().min(1).max(1_000_000).optional(),
    label: name.optional(),
    models: cliModels.optional(),
    expires_at: cliExpiry.optional(),
    ...cliBudget,
    preferences: cliPreferences,
  }),
  z.object({
    command: z.literal('apikey update'),
    key: z.string().min(1).max(500).optional(),
    id: id.optional(),
    models: cliModels.optional(),
    expires_at: cliExpiry.optional(),
    ...cliBudget,
    preferences: cliPreferences,
  }),
  z.object({
    command: z.literal('org update'),
    org: id,
    network_nodes: z
      .preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ error: 'network_nodes is true or false' }))
      .optional(),
    ...cliBudget,
  }),
  z.object({ command: z.literal('apikey revoke'), key: z.string().min(1).max(500).optional(), id: id.optional() }),
  z.object({ command: z.literal('partner create'), org: id, name }),
  z.object({ command: z.literal('admin-token create'), label: name.optional() }),
  z.object({ command: z.literal('admin-token revoke'), token: z.string().min(1).max(500).optional(), id: id.optional() }),
  z.object({
    command: z.literal('node register'),
    partner: id,
    external_id: z.string().trim().min(1).max(200),
    name: name.optional(),
    ip: z.string().trim().max(64).optional(),
  }),
  z.object({ command: z.literal('node admit'), partner: id, node: id.optional() }),
  z.object({ command: z.literal('node revoke'), partner: id, node: id.optional() }),
  z.object({ command: z.literal('demo') }),
  z.object({
    command: z.literal('backup'),
    out: z.string().min(1).max(4096),
    include_key: z.preprocess((v) => v === 'true' || v === true, z.boolean()).optional(),
  }),
  z.object({ command: z.literal('restore'), from: z.string().min(1).max(4096) }),
  z.object({ command: z.literal('demo node stop'), node: id }),
  z.object({ command: z.literal('demo node start'), node: id }),
  // Providers: the admin API's fields, the node link as --partner and --node (or --node none).
  providerCreateSchema.omit({ node: true }).extend({ command: z.literal('provider add'), ...nodeFlags() }),
  z.object({ command: z.literal('provider list') }),
  providerUpdateFields
    .omit({ node: true })
    .extend({ command: z.literal('provider update'), name: providerName, rename: providerName.optional(), ...nodeFlags() }),
  z.object({ command: z.literal('provider remove'), name: providerName }),
  z.object({ command: z.literal('provider test'), name: providerName }),
]);
export type AdminCommand = z.infer<typeof adminCommandSchema>;
/** The commands whose last word is a value: `demo node stop demo-node-001`, `provider test NAME`. */
export const POSITIONAL: Partial<Record<AdminCommand['command'], string>> = {
  'demo node stop': 'node',
  'demo node start': 'node',
  'provider update': 'name',
  'provider remove': 'name',
  'provider test': 'name',
};

function nodeFlags() {
  return { partner: id.optional(), node: z.string().trim().min(1).max(200).optional() };
}

/** --partner P --node N → a link; --node none → no link; neither → unchanged. */
function nodeLink(cmd: { partner?: string; node?: string }) {
  if (cmd.node === 'none') return null;
  if (cmd.node === undefined && cmd.partner === undefined) return undefined;
  if (!cmd.node || !cmd.partner) throw new AdminError('give --partner and --node together (or --node none to unlink)');
  return { partner_id: cmd.partner, partner_node_id: cmd.node };
}
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

/** Commands that change nothing, and are not written to the audit log. */
const READS = new Set<AdminCommand['command']>(['provider list', 'provider test', 'backup', 'restore', 'demo']);
/** What of a command the audit log keeps: names and ids, never a token, key or secret. */
const AUDITED_FIELDS = [
  'org',
  'name',
  'label',
  'partner',
  'external_id',
  'node',
  'id',
  'rename',
  'base_url',
  'models',
  'expires_at',
  'budget_usd',
  'budget_period',
  'preferences',
  'network_nodes',
  'price_prompt',
  'price_completion',
  'price_per_1k',
  'weight',
  'enabled',
];

/**
 * Runs one command and returns the JSON object the CLI prints with --json (`database`: the one `db`
 * belongs to, for backup). A command that changes something is written to the audit log (as `admin_cli`).
 */
export async function runAdminCommand(db: Db, cmd: AdminCommand, database?: Database): Promise<Record<string, unknown>> {
  wireStatistics(); // a provider linked to a node tells the node's statistics of its changes
  const result = await runCommand(db, cmd, database);
  if (!READS.has(cmd.command)) {
    const detail = Object.fromEntries(
      AUDITED_FIELDS.filter((f) => f in cmd && (cmd as Record<string, unknown>)[f] !== undefined).map((f) => [
        f,
        (cmd as Record<string, unknown>)[f],
      ]),
    );
    const orgId = typeof result.org_id === 'string' ? result.org_id : 'org' in cmd && typeof cmd.org === 'string' ? cmd.org : null;
    await audit(db, { orgId, actor: 'admin_cli', action: auditAction(cmd.command), detail });
  }
  return result;
}

/** The objects the CLI's commands name, as the audit log names them (the API's own names). */
const AUDIT_OBJECTS: Record<string, string> = {
  org: 'organization',
  token: 'org_token',
  apikey: 'api_key',
  'admin-token': 'admin_token',
  'demo node': 'demo_node',
};

/**
 * One style for every audit action, whoever acted: `object.verb` in snake_case, the same name a change
 * has when made through the API (`org create` → `organization.create`); the actor says it was the CLI.
 */
export function auditAction(command: string): string {
  const words = command.split(' ');
  const verb = words.pop()!;
  const object = words.join(' ');
  return `${AUDIT_OBJECTS[object] ?? object.replaceAll(/[ -]/g, '_')}.${verb.replaceAll('-', '_')}`;
}

async function runCommand(db: Db, cmd: AdminCommand, database?: Database): Promise<Record<string, unknown>> {
  // Every case awaits what it returns: a promise returned as it is would reject past the catch below.
  try {
    switch (cmd.command) {
      case 'backup': {
        if (!database) throw new AdminError('backup needs the database itself');
        const { secret_key, ...manifest } = await writeBackup(database, cmd.out, { includeKey: cmd.include_key });
        return { file: path.resolve(cmd.out), ...manifest, includes_key: secret_key !== undefined };
      }
      case 'restore':
        throw new AdminError('restore runs from the command line into an empty data directory, never through a server');
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
      case 'apikey create': {
        const { id, key } = await createApiKey(db, {
          orgId: cmd.org,
          rpm: cmd.rpm,
          label: cmd.label,
          models: cmd.models,
          expires_at: cmd.expires_at,
          budget_usd: cmd.budget_usd,
          budget_period: cmd.budget_period,
          preferences: cmd.preferences,
        });
        return { api_key_id: id, api_key: key };
      }
      case 'apikey update': {
        exactlyOne({ key: cmd.key, id: cmd.id }, 'the API key to change');
        const { models, expires_at, budget_usd, budget_period, preferences } = cmd;
        if ([models, expires_at, budget_usd, budget_period, preferences].every((v) => v === undefined))
          throw new AdminError('give --models, --expires-at, --budget-usd, --budget-period or --preferences (none removes one)');
        if (budget_usd === null && budget_period !== undefined)
          throw new AdminError('--budget-usd none removes the budget; give no --budget-period with it');
        const updated = await updateApiKey(
          db,
          { key: cmd.key, id: cmd.id },
          { models, expires_at, budget_usd, budget_period, preferences },
        );
        if (!updated) throw new AdminError('no such active API key');
        const { id, ...controls } = updated;
        return { api_key_id: id, ...controls };
      }
      case 'org update': {
        await getOrganization(db, { orgId: cmd.org });
        const { network_nodes, budget_usd, budget_period } = cmd;
        if ([network_nodes, budget_usd, budget_period].every((v) => v === undefined))
          throw new AdminError('give --network-nodes, --budget-usd or --budget-period');
        return { org_id: cmd.org, ...(await setOrgSettings(db, cmd.org, { network_nodes, budget_usd, budget_period })) };
      }
      case 'apikey revoke': {
        exactlyOne({ key: cmd.key, id: cmd.id }, 'the API key to revoke');
        if (!(await revokeApiKey(db, cmd))) throw new AdminError('no such active API key');
        return { revoked: true };
      }
      case 'admin-token create': {
        const { id, token } = await createAdminToken(db, { label: cmd.label });
        return { admin_token_id: id, admin_token: token };
      }
      case 'admin-token revoke': {
        exactlyOne({ token: cmd.token, id: cmd.id }, 'the admin token to revoke');
        if (!(await revokeAdminToken(db, cmd))) throw new AdminError('no such active admin token');
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
      case 'node admit':
      case 'node revoke':
        return await setAdmission(db, { partner_id: cmd.partner, partner_node_id: cmd.node }, cmd.command === 'node admit', 'admin_cli');
      case 'demo': {
        const { credentials } = await ensureDemo(db);
        return credentials;
      }
      case 'demo node stop':
      case 'demo node start':
        return await demoNode(db, cmd.node, cmd.command === 'demo node stop' ? 'stop' : 'start');
      case 'provider add': {
        // The rest is the admin API's fields of a provider (its schema's, less the node link given as flags).
        const { command, partner, node, ...fields } = cmd;
        return await addProvider(db, { ...fields, node: nodeLink({ partner, node }) });
      }
      case 'provider list':
        return { providers: await showProviders(db) };
      case 'provider update': {
        const { command, partner, node, name, rename, ...fields } = cmd;
        if (rename === undefined && node === undefined && !Object.values(fields).some((v) => v !== undefined)) {
          throw new AdminError('give at least one option to change');
        }
        return await changeProvider(db, name, { ...fields, name: rename, node: nodeLink({ partner, node }) });
      }
      case 'provider remove':
        return await deleteProvider(db, cmd.name);
      case 'provider test':
        return await testProvider(db, cmd.name);
    }
  } catch (e) {
    if (e instanceof NotFoundError || e instanceof ProviderError || e instanceof BackupError) throw new AdminError(e.message);
    throw e;
  }
}
