import { and, eq, isNull, or } from 'drizzle-orm';
import { config } from '@/lib/config';
import type { Db } from '@/lib/db/client';
import { providers } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { NATIVE_ENDPOINTS } from '@/lib/chat/capabilities';
import { markDown, recordAlive, refreshAlive } from '@/lib/providers/health';
import { refreshProvider } from '@/lib/providers/pool';
import { providerName } from '@/lib/providers/schema';
import { getProviderById } from '@/lib/providers/store';
import { perMillion } from '@/lib/providers/prices';
import { fillNodeAddress, registerNode } from '@/lib/stats/nodes';
import { CLOSE, type Frame, type Hello, parseFrame, VERSION } from './protocol';
import { ownInternalUrl, registry, type Tunnel, type TunnelLink, tunnelsOfPartner } from './registry';

/*
 * Nodes that dial in (design §14), Triad's side: a node agent's WebSocket (accepted by the server,
 * ./server.ts) becomes a provider of kind `tunnel` for its node, with the models of its
 * hello, routed like any other (lib/providers/pool.ts, router.ts). Requests go down the tunnel as channels
 * (./channel.ts: flow control both ways). Open → the node's `connect`; closed → `disconnect`;
 * a heartbeat each minute while open (one statement for every tunnel held here); the row's checked_at is refreshed every PING_MS, and a row not
 * refreshed for STALE_MS (its instance died) is taken out by the prober (lib/providers/prober.ts).
 */
export const PING_MS = 10_000;
const HEARTBEAT_MS = 60_000;
/**
 * The tunnel provider of a node, created on its first connection (or ahead of it, by the demo, with
 * its weight and price): named after the node's id when that name is free, else with its public id
 * added; its prices from TRIAD_TUNNEL_PRICE_PER_1K (USD per 1 000 tokens, both directions). Returns its id.
 */
export async function ensureTunnelProvider(
  db: Db,
  node: { id: number; externalId: string; publicId: string },
  settings: { weight?: number; price?: string; timeoutMs?: number } = {},
): Promise<string> {
  const found = await db.query.providers.findFirst({
    where: and(eq(providers.kind, 'tunnel'), eq(providers.nodeId, node.id)),
    columns: { id: true },
  });
  if (found) return found.id;
  const c = config();
  const plain = providerName.safeParse(node.externalId).success ? node.externalId : null;
  const suffixed = `${node.externalId.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40)}.${node.publicId}`.replace(/^[^A-Za-z0-9]/, 'n');
  for (const name of plain ? [plain, suffixed] : [suffixed]) {
    const [row] = await db
      .insert(providers)
      .values({
        id: `prv_${node.publicId.slice(3)}`,
        kind: 'tunnel',
        name,
        baseUrl: `tunnel://${node.publicId}`,
        weight: settings.weight ?? 1,
        timeoutMs: settings.timeoutMs ?? c.TRIAD_UPSTREAM_TIMEOUT_MS,
        pricePrompt: perMillion(settings.price ?? c.TRIAD_TUNNEL_PRICE_PER_1K),
        priceCompletion: perMillion(settings.price ?? c.TRIAD_TUNNEL_PRICE_PER_1K),
        nodeId: node.id,
      })
      .onConflictDoNothing()
      .returning({ id: providers.id });
    if (row) return row.id;
    const again = await db.query.providers.findFirst({ where: and(eq(providers.kind, 'tunnel'), eq(providers.nodeId, node.id)) });
    if (again) return again.id; // made meanwhile (by another instance)
  }
  throw new Error(`no provider name is free for node ${node.externalId}`);
}

/**
 * A node's hello on a new tunnel: the node registered (idempotent; its `ip` the address the agent
 * connects from, when none was given), its tunnel provider created or brought up, the models recorded,
 * the tunnel held here (one replaced for the same node is closed).
 */
export async function openTunnel(db: Db, partnerId: string, hello: Hello, link: TunnelLink, address = ''): Promise<Tunnel> {
  const c = config();
  const { node } = await registerNode(db, { partnerId, externalId: hello.node, name: hello.name, ip: address });
  await fillNodeAddress(db, node, address);
  const id = await ensureTunnelProvider(db, node);
  const record = (await getProviderById(db, id))!;
  const reg = registry();
  const old = reg.byProvider.get(record.id);
  const tunnel: Tunnel = {
    providerId: record.id,
    providerName: record.name,
    partnerId,
    link,
    channels: new Map(),
    heads: new Map(),
    nextId: 1,
    maxStreams: Math.min(hello.max_concurrency, c.TRIAD_TUNNEL_MAX_STREAMS),
    peerWindow: hello.window,
    draining: false,
    models: hello.models,
    version: Math.min(hello.version ?? 1, VERSION),
    connectedAt: Date.now(),
    closed: false,
  };
  if (old) {
    old.closed = true;
    endChannels(old, 'the node connected again');
    old.link.close(CLOSE.replaced, 'replaced by a newer connection of the same node');
  } else reg.byPartner.set(partnerId, tunnelsOfPartner(partnerId) + 1);
  reg.byProvider.set(record.id, tunnel);
  // What the agent speaks (its protocol; the APIs its model server speaks natively, version 2 on), for every instance's router.
  const spoken = tunnel.version >= 2 ? NATIVE_ENDPOINTS.filter((e) => hello.endpoints?.includes(e)) : [];
  const endpoints = spoken.length ? spoken : null;
  await db.update(providers).set({ heldBy: ownInternalUrl(), tunnelVersion: tunnel.version, endpoints }).where(eq(providers.id, record.id));
  await recordAlive(db, [{ id: record.id, models: hello.models }], Date.now());
  await refreshProvider(db, record.id);
  keepAlive(db);
  log.info('node connected', { provider: record.name, node: hello.node, models: hello.models.length, protocol: tunnel.version });
  return tunnel;
}

/** A frame from the agent; a frame that breaks the protocol closes the tunnel (and only it). */
export function tunnelFrame(db: Db, t: Tunnel, text: string): void {
  const f = parseFrame(text);
  if (typeof f === 'string') return void t.link.close(CLOSE.protocol, f);
  try {
    handle(db, t, f);
  } catch (e) {
    // (By name: the channel may be of another copy of this code, Next's bundle say.)
    if ((e as Error).name !== 'ProtocolViolation') throw e;
    t.link.close(CLOSE.protocol, (e as Error).message.slice(0, 120));
  }
}

const violation = (message: string) => Object.assign(new Error(message), { name: 'ProtocolViolation' });

function handle(db: Db, t: Tunnel, f: Frame) {
  switch (f.t) {
    case 'head': {
      const h = t.heads.get(f.id);
      if (!h) throw violation(`head of request ${f.id}, which is not open`);
      t.heads.delete(f.id);
      h.resolve({ status: f.status, retryAfter: f.retry_after === undefined ? undefined : String(f.retry_after) });
      return;
    }
    case 'data':
    case 'end':
    case 'win': {
      const ch = t.channels.get(f.id);
      if (ch) ch.receive(f);
      else if (f.id >= t.nextId) throw violation(`frame for request ${f.id}, which was never opened`);
      return; // (a late frame of a request that ended here: dropped)
    }
    case 'fail': {
      const e = new Error(`the node could not serve it: ${f.message}`);
      t.heads.get(f.id)?.reject(e);
      t.heads.delete(f.id);
      t.channels.get(f.id)?.fail(e);
      return;
    }
    case 'models':
      t.models = f.models;
      void recordAlive(db, [{ id: t.providerId, models: f.models }], Date.now())
        .then(() => refreshProvider(db, t.providerId))
        .catch((e: Error) => log.warn('node models not recorded', { provider: t.providerName, error: e.message }));
      return;
    case 'drain':
      t.draining = true;
      return;
    default:
      throw violation(`a ${f.t} frame from a node`);
  }
}

/** The tunnel closed: its requests fail (tried elsewhere when nothing was sent yet), its node disconnects. */
export async function closeTunnel(db: Db, t: Tunnel, why: string): Promise<void> {
  endChannels(t, `the node's tunnel closed (${why})`);
  const reg = registry();
  if (reg.byProvider.get(t.providerId) !== t) return; // replaced: the newer one holds the node
  t.closed = true;
  reg.byProvider.delete(t.providerId);
  const n = tunnelsOfPartner(t.partnerId) - 1;
  if (n > 0) reg.byPartner.set(t.partnerId, n);
  else reg.byPartner.delete(t.partnerId);
  log.info('node disconnected', { provider: t.providerName, reason: why });
  try {
    // Unless another instance holds the node now (its agent reconnected there first).
    const [mine] = await db
      .update(providers)
      .set({ heldBy: null })
      .where(and(eq(providers.id, t.providerId), or(isNull(providers.heldBy), eq(providers.heldBy, ownInternalUrl()))))
      .returning({ id: providers.id });
    const p = mine ? await getProviderById(db, t.providerId) : null;
    if (p) await markDown(db, p, `tunnel closed: ${why}`, Date.now());
    await refreshProvider(db, t.providerId);
  } catch (e) {
    log.warn('node disconnect not recorded', { provider: t.providerName, error: (e as Error).message });
  }
}

function endChannels(t: Tunnel, message: string) {
  const e = new Error(message);
  for (const h of t.heads.values()) h.reject(e);
  t.heads.clear();
  for (const ch of t.channels.values()) ch.fail(e);
  t.channels.clear();
}

/**
 * While tunnels are held: their rows refreshed every PING_MS (so that other instances and the prober know
 * they live; one taken out meanwhile comes back), a heartbeat each minute.
 */
function keepAlive(db: Db) {
  const reg = registry();
  if (reg.timer) return;
  let ticks = 0;
  reg.timer = setInterval(() => {
    const held = [...reg.byProvider.values()].filter((t) => !t.closed);
    if (!held.length) {
      clearInterval(reg.timer!);
      reg.timer = null;
      return;
    }
    const beat = ++ticks % (HEARTBEAT_MS / PING_MS) === 0;
    void (async () => {
      const alive = held.map((t) => ({ id: t.providerId, models: t.models }));
      const back = beat ? await recordAlive(db, alive, Date.now()) : await refreshAlive(db, alive, Date.now());
      for (const id of back) await refreshProvider(db, id);
    })().catch((e: Error) => log.warn('tunnels not refreshed', { error: e.message }));
  }, PING_MS);
  reg.timer.unref();
}
