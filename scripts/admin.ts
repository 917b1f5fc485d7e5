// `npm run admin -- <command> [--flags] [--json]`: organizations, credentials, partners, nodes, demo.
// With PostgreSQL (DATABASE_URL) it opens the database itself. With the embedded database it goes
// through the running server when there is one (the server holds the data directory), and opens
// the data directory itself otherwise.
import { ADMIN_COMMANDS, adminCommandSchema, type AdminCommand, POSITIONAL } from '@/lib/admin/commands';
import { describeZodError } from '@/lib/http/validation';
import { CliError, runCommand } from './lib/admin-client';

const USAGE = `usage: npm run admin -- <command> [--json]   (in the package, dist/triad: node admin.mjs <command>)
  org create --name NAME                 → org_id, org_token
  token create --org ORG_ID [--label L]  → org_token
  token revoke (--token TOKEN | --id ID)
  org update --org ORG_ID [--network-nodes true|false] [--budget-usd USD | none] [--budget-period day|week|month|total]
                 its budget caps the spend of all its keys together (UTC calendar periods)
  apikey create --org ORG_ID [--rpm N] [--label L] [--models a,b] [--expires-at UNIX_S]
                [--budget-usd USD --budget-period day|week|month|total] [--preferences JSON] → api_key_id, api_key
  apikey update (--key KEY | --id ID) [--models a,b | none] [--expires-at UNIX_S | none]
                [--budget-usd USD | none] [--budget-period P]   the models it may use, its expiry, its budget
                [--preferences '{"sort":"price","only":["p1"]}' | none]   routing its requests get when they give none
  apikey revoke (--key KEY | --id ID)
  partner create --org ORG_ID --name NAME → partner_id, partner_secret
  admin-token create [--label L]         → admin_token (signs an instance administrator in to the console)
  admin-token revoke (--token TOKEN | --id ID)   its console sessions end with it
  node register --partner PARTNER_ID --external-id ID [--name NAME] [--ip IP] → partner_node_id
  node admit --partner PARTNER_ID [--node PARTNER_NODE_ID]
                 admit the node (or the partner with all its nodes) to the network: it then serves
                 every organization's completions; until then a node serves its own organization only
  node revoke --partner PARTNER_ID [--node PARTNER_NODE_ID]   private again, from the next request
  demo                                   → org_token, api_key, partner_secret, partner_node_ids
  backup --out FILE [--include-key]     a snapshot of the embedded database while it serves (+ manifest)
  restore --from FILE                    into an empty data directory (TRIAD_DATA_DIR); the key must match
  demo node stop|start NODE              stop or start a demo node's model server (demo mode)
  provider add --name NAME --base-url URL [--api-key KEY] [--models a,b] [--renames exposed=upstream,…]
               [--weight N] [--timeout-ms MS] [--price-prompt USD/M] [--price-completion USD/M]
               [--price-per-1k USD] [--enabled true|false]
               [--partner PARTNER_ID --node PARTNER_NODE_ID]
               [--capabilities tools,vision,json_schema,logprobs | none | auto]
                 what its models can do beyond text; requests that need one skip providers
                 that lack it (none: declares none; auto, the default: the provider decides)
               [--endpoints responses,messages | none]
                 the APIs its server speaks natively beyond chat completions: requests of
                 those are passed through to it as written (none, the default: translated)
  provider list
  provider update NAME [--rename NEW] [any option of add; --node none unlinks, --api-key none removes]
  provider remove NAME
  provider test NAME                      probe it now: ok, latency_ms, models, error`;

export function parseArgs(argv: string[]): { command: AdminCommand; json: boolean } {
  const words: string[] = [];
  const flags: Record<string, string> = {};
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--include-key') flags.include_key = 'true';
    else if (arg === '--help' || arg === '-h') throw new CliError(USAGE);
    else if (arg.startsWith('--')) {
      const [key, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
      const value = inline ?? argv[++i];
      if (value === undefined) throw new CliError(`--${key} needs a value`);
      flags[key.replaceAll('-', '_')] = value;
    } else words.push(arg);
  }
  let name = words.join(' ');
  if (!name) throw new CliError(USAGE);
  // `provider test NAME`: the last word is the command's value.
  const head = words.slice(0, -1).join(' ') as AdminCommand['command'];
  const positional = POSITIONAL[head];
  if (!(ADMIN_COMMANDS as string[]).includes(name) && positional && !(positional in flags)) {
    flags[positional] = words.at(-1)!;
    name = head;
  }
  if (!(ADMIN_COMMANDS as string[]).includes(name)) throw new CliError(`unknown command "${name}"; commands: ${ADMIN_COMMANDS.join(', ')}`);
  const parsed = adminCommandSchema.safeParse({ command: name, ...flags });
  if (!parsed.success)
    throw new CliError(
      `${name}: ${describeZodError(parsed.error).detail.replace(/(^|; )(\w+)(?:\.\w+)*:/g, (_, sep: string, flag: string) => `${sep}--${flag.replaceAll('_', '-')}:`)}`,
    );
  const known = Object.keys(parsed.data);
  const unknown = Object.keys(flags).filter((f) => !known.includes(f));
  if (unknown.length) throw new CliError(`${name}: unknown option ${unknown.map((f) => `--${f.replaceAll('_', '-')}`).join(', ')}`);
  return { command: parsed.data, json };
}

function print(result: Record<string, unknown>, json: boolean) {
  if (json) {
    process.stdout.write(JSON.stringify(result) + '\n');
    return;
  }
  if (Array.isArray(result.providers)) {
    for (const p of result.providers as {
      name: string;
      base_url: string;
      enabled: boolean;
      health: { state: string };
      serves: string[];
      capabilities: string[] | null;
      endpoints: string[] | null;
    }[]) {
      const state = p.enabled ? p.health.state : 'disabled';
      const can = p.capabilities ? `  [can: ${p.capabilities.join(', ') || 'text only'}]` : '';
      const speaks = p.endpoints ? `  [speaks: ${p.endpoints.join(', ')}]` : '';
      process.stdout.write(`${p.name.padEnd(24)} ${state.padEnd(8)} ${p.base_url}  ${p.serves.join(', ')}${can}${speaks}\n`);
    }
    return;
  }
  for (const [k, v] of Object.entries(result)) {
    const text =
      Array.isArray(v) && v.every((x) => typeof x !== 'object')
        ? v.join(', ')
        : typeof v === 'object' && v !== null
          ? JSON.stringify(v)
          : String(v);
    process.stdout.write(`${k}: ${text}\n`);
  }
}

async function main() {
  const { command, json } = parseArgs(process.argv.slice(2));
  print(await runCommand(command), json);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(message === USAGE ? `${USAGE}\n` : `admin: ${message.split('\n')[0]}\n`);
    process.exit(message === USAGE && process.argv.some((a) => a === '--help' || a === '-h') ? 0 : 1);
  },
);
