import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import {
  createApiKey,
  createOrganization,
  createOrgToken,
  createPartner,
  findApiKey,
  findOrgByToken,
  findPartnerBySecret,
} from '@/lib/auth/credentials';
import { secretBox } from '@/lib/auth/secret-box';
import { createAlias } from '@/lib/aliases/aliases';
import type { Db } from '@/lib/db/client';
import { appSettings, organizations } from '@/lib/db/schema';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { nodes } from '@/lib/db/schema';
import { simulateFleet } from '@/lib/stats/simulate';
import { addEarnings } from '@/lib/stats/earnings';
import { markDown } from '@/lib/providers/health';
import { startDemoAgent, stopDemoAgent, tunnelHeld } from './demo-agents';
import { simulateUsage } from './demo-usage';
import { DEMO_MODEL, DEMO_SERVERS, demoServerUrl, startDemoServer, stopDemoServer } from './demo-servers';
import { getProvider, ProviderError, removeProvider } from '@/lib/providers/store';
import { ensureTunnelProvider } from '@/lib/tunnel/sessions';
import { whenReady } from '@/lib/core/phase';

/** What `npm run admin -- demo --json` prints and demo-credentials.json holds. */
export const demoCredentialsSchema = z.object({
  org_token: z.string(),
  api_key: z.string(),
  partner_secret: z.string(),
  partner_node_ids: z.array(z.string()),
});
export type DemoCredentials = z.infer<typeof demoCredentialsSchema>;

const stateSchema = demoCredentialsSchema.extend({ org_id: z.string(), partner_id: z.string() });
type DemoState = z.infer<typeof stateSchema>;

const SETTING = 'demo';
/** Arbitrary constant naming the demo set-up among PostgreSQL advisory locks. */
const DEMO_LOCK_ID = 727_166_002;
/** The demo fleet: 40 simulated nodes with 21 days of history. */
export const DEMO_FLEET = { nodes: 40, days: 21, seed: 42, prefix: 'demo-node' };

/** The demo credentials, if the demo has been set up and they still work. */
export async function readDemo(db: Db): Promise<DemoState | null> {
  const row = await db.query.appSettings.findFirst({ where: eq(appSettings.key, SETTING) });
  if (!row) return null;
  try {
    return stateSchema.parse(JSON.parse(secretBox().decrypt(row.value)));
  } catch {
    return null; // made with another key, or damaged: set up again
  }
}

/**
 * Creates the demo organization with an org token, an API key, a partner and its nodes, once.
 * Later calls return the same credentials (kept encrypted in app_settings), replacing any that
 * were revoked meanwhile. Safe to run from several processes at once.
 */
export async function ensureDemo(db: Db): Promise<{ created: boolean; credentials: DemoCredentials }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${DEMO_LOCK_ID})`);
    const previous = await readDemo(tx);
    const orgExists = previous && (await tx.query.organizations.findFirst({ where: eq(organizations.id, previous.org_id) }));
    let state: DemoState;
    let history: Awaited<ReturnType<typeof simulateUsage>> | undefined;
    if (previous && orgExists) {
      state = { ...previous };
      if (!(await findOrgByToken(tx, state.org_token)))
        state.org_token = (await createOrgToken(tx, { orgId: state.org_id, label: 'demo' })).token;
      if (!(await findApiKey(tx, state.api_key)))
        state.api_key = (await createApiKey(tx, { orgId: state.org_id, rpm: 600, label: 'demo' })).key;
      if (!(await findPartnerBySecret(tx, { orgId: state.org_id, secret: state.partner_secret }))) {
        const p = await createPartner(tx, { orgId: state.org_id, name: 'Demo partner' });
        state.partner_id = p.id;
        state.partner_secret = p.secret;
      }
    } else {
      const org = await createOrganization(tx, { name: 'Demo organization' });
      const partner = await createPartner(tx, { orgId: org.id, name: 'Demo partner' });
      state = {
        org_id: org.id,
        partner_id: partner.id,
        org_token: (await createOrgToken(tx, { orgId: org.id, label: 'demo' })).token,
        api_key: (await createApiKey(tx, { orgId: org.id, rpm: 600, label: 'demo' })).key,
        partner_secret: partner.secret,
        partner_node_ids: [],
      };
      await createDemoAliases(tx, org.id);
      history = await simulateUsage(tx, { orgId: org.id });
    }
    const existing = await tx
      .select({ externalId: nodes.externalId })
      .from(nodes)
      .where(eq(nodes.partnerId, state.partner_id))
      .orderBy(nodes.id);
    state.partner_node_ids = existing.length
      ? existing.map((n) => n.externalId)
      : (
          await simulateFleet(tx, {
            partnerId: state.partner_id,
            ...DEMO_FLEET,
            heartbeatTimeoutMs: config().TRIAD_HEARTBEAT_TIMEOUT_S * 1000,
          })
        ).partner_node_ids;
    // The demo nodes that served the usage history earned by it, as a served completion makes them earn.
    if (history) {
      const fleet = await tx
        .select({ id: nodes.id, externalId: nodes.externalId })
        .from(nodes)
        .where(eq(nodes.partnerId, state.partner_id));
      const ids = new Map(fleet.map((n) => [n.externalId, n.id]));
      await addEarnings(
        tx,
        history.served.filter((h) => ids.has(h.node)).map(({ node, ...h }) => ({ ...h, nodeId: ids.get(node)! })),
      );
    }
    const value = secretBox().encrypt(JSON.stringify(state));
    await tx
      .insert(appSettings)
      .values({ key: SETTING, value, encrypted: true })
      .onConflictDoUpdate({ target: appSettings.key, set: { value, updatedAt: new Date() } });
    const { org_token, api_key, partner_secret, partner_node_ids } = state;
    return { created: !previous, credentials: { org_token, api_key, partner_secret, partner_node_ids } };
  });
}

/**
 * A new demo organization's aliases, one of each kind of access (interface 4.7): public, by passcode,
 * and by JWT (with a stream key for hosts). Their secrets are random; the owner reads them in the
 * alias manager. They expire in 90 days.
 */
async function createDemoAliases(db: Db, orgId: string) {
  const expired_at = Math.floor(Date.now() / 1000) + 90 * 86_400;
  const secret = (bytes: number) => randomBytes(bytes).toString('base64url');
  await createAlias(db, { orgId, input: { type: 'live', name: 'Demo launch stream (public)', expired_at } });
  await createAlias(db, { orgId, input: { type: 'conference', name: 'Team stand-up (passcode)', passcode: secret(9), expired_at } });
  await createAlias(db, {
    orgId,
    input: { type: 'live', name: 'Partner webinar (JWT)', jwt_secret: secret(32), stream_key: `sk_${secret(16)}`, expired_at },
  });
}

/** True when no organization exists yet: the first start of a new installation. */
export async function isEmptyInstallation(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(organizations);
  return (row?.n ?? 0) === 0;
}

/**
 * Demo mode with no upstream: the demo nodes that serve (DEMO_SERVERS) get their model servers
 * started and a node agent each (./demo-agents.ts), which dials in to this server with the demo
 * partner's secret: each node's tunnel is its provider (named after the node, with a weight and a
 * price), so the demo shows the whole path: agent → tunnel → routing → statistics and earnings.
 */
export async function startDemoProviders(db: Db): Promise<void> {
  const demo = await readDemo(db);
  if (!demo) return;
  // Agents dial in through Triad's own server (it upgrades their WebSockets): not under plain `next start`.
  if (!process.env.TRIAD_INTERNAL_PEER_KEY)
    return log.warn('demo nodes do not serve: Triad runs without its own server (npm start runs it)');
  const serving: { node: string; url: string; providerId: string }[] = [];
  for (const d of DEMO_SERVERS) {
    if (!demo.partner_node_ids.includes(d.node)) continue;
    serving.push({ node: d.node, providerId: await demoTunnel(db, demo.partner_id, d), url: demoServerUrl(await startDemoServer(d.node)) });
  }
  // The agents are started once the server is ready, and dial in a moment after (as Node processes of
  // their own, started during start-up, they took two seconds of a two-core machine's start). Each
  // "node connected" line says when one is in; the playground shows the providers up.
  void whenReady().then(async () => {
    for (const s of serving) startDemoAgent(s.node, s.url, DEMO_MODEL, demo.partner_secret);
    const held = await Promise.all(serving.map((s) => tunnelHeld(s.providerId, 15_000)));
    if (held.includes(false)) log.warn('demo agents not all connected within 15 s; they keep trying');
  });
}

/** The demo node's tunnel provider, with its weight and price (an HTTP provider an earlier version made for it is removed). */
async function demoTunnel(db: Db, partnerId: string, d: { node: string; weight: number; price: string }): Promise<string> {
  const earlier = await getProvider(db, d.node).catch(() => null);
  if (earlier?.kind === 'http' && earlier.node?.externalId === d.node) await removeProvider(db, d.node);
  const node = await db.query.nodes.findFirst({ where: and(eq(nodes.partnerId, partnerId), eq(nodes.externalId, d.node)) });
  if (!node) throw new ProviderError('invalid', `the demo partner has no node ${d.node}`);
  return ensureTunnelProvider(db, node, { weight: d.weight, price: d.price, timeoutMs: 10_000 });
}

/** `demo node stop|start <node>`: the agent of a demo node stops (its tunnel closes), or starts and connects again. */
export async function demoNode(db: Db, node: string, action: 'stop' | 'start') {
  const d = DEMO_SERVERS.find((x) => x.node === node);
  const demo = await readDemo(db);
  if (!d || !demo)
    throw new ProviderError('invalid', `${node} is not a demo node with a model server (${DEMO_SERVERS.map((x) => x.node).join(', ')})`);
  if (action === 'stop') return { node, running: false, was_running: await stopDemoAgent(node) };
  const providerId = await demoTunnel(db, demo.partner_id, d);
  const port = await startDemoServer(node);
  startDemoAgent(node, demoServerUrl(port), DEMO_MODEL, demo.partner_secret);
  return { node, running: await tunnelHeld(providerId), port };
}

/** At shutdown: the demo agents and servers stop with Triad, and their nodes disconnect (their uptime stops growing). */
export async function stopDemoProviders(db: Db): Promise<void> {
  for (const d of DEMO_SERVERS) {
    await stopDemoAgent(d.node);
    await stopDemoServer(d.node);
    const p = await getProvider(db, d.node).catch(() => null);
    if (p && p.state !== 'down') await markDown(db, p, 'Triad stopped', Date.now());
  }
}
