// `npm run simulate -- --nodes N --days D [--seed S] [--prefix P] [--org-token T --secret S] [--json]`
// Fills a partner with a simulated fleet (steady, flapping, outage-prone and never-connected nodes
// with earnings) through the same ingestion code as the API: over HTTP when a server holds the
// embedded store, else directly. Without --org-token/--secret it creates an organization and a
// partner and prints their credentials.
import { findOrgByToken, findPartnerBySecret } from '@/lib/auth/credentials';
import { parseConfig } from '@/lib/config';
import { openDatabase } from '@/lib/db/client';
import { ingestEvents } from '@/lib/stats/ingest';
import { registerNode } from '@/lib/stats/nodes';
import { batches, generateFleet } from '@/lib/stats/simulate';
import { CliError, runCommand, runningServerPort } from './lib/admin-client';
import { positiveNumber, refuse, scriptOptions } from './lib/cli.mjs';

const USAGE = `usage: npm run simulate -- [--nodes N] [--days D] [--seed S] [--prefix P] [--org-token T --secret S] [--json]
  --nodes N                      nodes in the fleet (40)
  --days D                       days of history, up to now (7)
  --seed S                       the same seed, the same fleet (1)
  --prefix P                     the nodes' ids begin with it (sim)
  --org-token T --secret S       the organization and partner to fill; without them both are created
  --json                         the result as JSON
Through the running server when one holds the data directory, else straight into the database.`;

function parseFlags() {
  const flags = scriptOptions(USAGE, {
    nodes: { type: 'string' },
    days: { type: 'string' },
    seed: { type: 'string' },
    prefix: { type: 'string' },
    'org-token': { type: 'string' },
    secret: { type: 'string' },
    json: { type: 'boolean', default: false },
  });
  if (!!flags['org-token'] !== !!flags.secret) refuse('give --org-token and --secret together');
  return {
    nodes: positiveNumber('nodes', flags.nodes, 40, { whole: true, max: 100_000 }),
    days: positiveNumber('days', flags.days, 7, { whole: true, max: 3650 }),
    seed: positiveNumber('seed', flags.seed, 1, { whole: true, max: 2 ** 31 }),
    prefix: flags.prefix ?? 'sim',
    orgToken: flags['org-token'],
    secret: flags.secret,
    json: flags.json,
  };
}

function progress(done: number, total: number, started: number) {
  if (!process.stderr.isTTY && done !== total) return;
  const width = 30;
  const filled = total ? Math.round((done / total) * width) : width;
  const rate = Math.round(done / Math.max((Date.now() - started) / 1000, 0.001));
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${total ? Math.round((100 * done) / total) : 100}% ${done}/${total} events, ${rate}/s${done === total ? '\n' : ''}`,
  );
}

async function main() {
  const opts = parseFlags();
  const c = parseConfig(process.env);
  let orgToken = opts.orgToken;
  let secret = opts.secret;
  if (!orgToken || !secret) {
    const org = await runCommand({ command: 'org create', name: `Simulated fleet ${new Date().toISOString().slice(0, 16)}` }, c);
    const partner = await runCommand({ command: 'partner create', org: org.org_id as string, name: 'Simulated partner' }, c);
    orgToken = org.org_token as string;
    secret = partner.partner_secret as string;
  }
  const port = runningServerPort(c);
  // Through a running server, events older than its retention window are refused: simulate no more.
  if (port && opts.days > c.TRIAD_EVENT_RETENTION_DAYS) {
    throw new Error(
      `--days ${opts.days} is longer than the events a server accepts (TRIAD_EVENT_RETENTION_DAYS = ${c.TRIAD_EVENT_RETENTION_DAYS}); simulate with the server stopped, or fewer days`,
    );
  }
  const now = Date.now();
  const { fleet, events } = generateFleet({ nodes: opts.nodes, days: opts.days, seed: opts.seed, prefix: opts.prefix, now });
  const total = events.reduce((s, e) => s + e.length, 0);
  const started = Date.now();
  let done = 0;
  let accepted = 0;

  if (port) {
    const base = `http://127.0.0.1:${port}/api/v1`;
    const post = async (path: string, body: object) => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${orgToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data?: { accepted?: number }; error?: { message: string; detail?: string } };
      if (!res.ok) throw new CliError(`${path}: ${json.error?.detail ?? json.error?.message ?? res.status}`);
      return json.data;
    };
    for (const n of fleet) await post('/node/register', { id: n.externalId, secret, name: n.name, ip: n.ip });
    for (const batch of batches(events)) {
      accepted += (await post('/node/events', { secret, events: batch }))?.accepted ?? 0;
      progress((done += batch.length), total, started);
    }
  } else {
    const database = await openDatabase(
      c.driver === 'postgres' ? { driver: 'postgres', url: c.DATABASE_URL!, poolSize: 2 } : { driver: 'pglite', dataDir: c.dataDir },
    );
    try {
      const org = await findOrgByToken(database.db, orgToken);
      const partner = org && (await findPartnerBySecret(database.db, { orgId: org.id, secret }));
      if (!partner) throw new CliError('the org token and partner secret do not name a partner');
      for (const n of fleet) await registerNode(database.db, { partnerId: partner.id, externalId: n.externalId, name: n.name, ip: n.ip });
      for (const batch of batches(events)) {
        accepted += (
          await ingestEvents(database.db, {
            partnerId: partner.id,
            events: batch,
            heartbeatTimeoutMs: c.TRIAD_HEARTBEAT_TIMEOUT_S * 1000,
            now,
          })
        ).accepted;
        progress((done += batch.length), total, started);
      }
    } finally {
      await database.close();
    }
  }
  if (total === 0) progress(0, 0, started);
  const result = { org_token: orgToken, partner_secret: secret, partner_node_ids: fleet.map((n) => n.externalId), events: total, accepted };
  if (opts.json) process.stdout.write(JSON.stringify(result) + '\n');
  else {
    const byProfile = fleet.reduce<Record<string, number>>((m, n) => ({ ...m, [n.profile]: (m[n.profile] ?? 0) + 1 }), {});
    process.stdout.write(
      `Simulated ${fleet.length} nodes over ${opts.days} days: ${Object.entries(byProfile)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}; ${accepted} of ${total} events new.\n` + `org_token:      ${orgToken}\npartner_secret: ${secret}\n`,
    );
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`simulate: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}\n`);
    process.exit(1);
  },
);
