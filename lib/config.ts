import path from 'node:path';
import { z } from 'zod';

/** Every environment variable Triad reads, with its default. The README's configuration table mirrors this. */
const flag = z.enum(['0', '1', 'true', 'false', 'yes', 'no', 'on', 'off']).transform((v) => ['1', 'true', 'yes', 'on'].includes(v));
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL with protocol ${protocols.join(' or ')}`,
  );

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: int(1, 65535).default(3000),
  /** Where the server listens: this machine only by default; `0.0.0.0` (or `::`) to serve other machines. */
  TRIAD_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * The local-only conveniences (demo credentials to a browser, metrics without a token): `auto` serves
   * them while the server listens on a loopback address only, `on` always, `off` never. A loopback
   * connection is local, so a proxy or tunnel on this machine makes its visitors local too.
   */
  TRIAD_LOCAL_ROUTES: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Behind a reverse proxy: take the client's address from X-Forwarded-For (its last entry) and HTTPS from X-Forwarded-Proto. */
  TRIAD_TRUST_PROXY: flag.default(false),
  TRIAD_DATA_DIR: z.string().min(1).default('./data'),
  /**
   * The embedded database's shared buffers (PostgreSQL's shared_buffers), in MB. PGlite's own default,
   * 128, is touched at start and costs as much resident memory; its data files sit in the operating
   * system's page cache anyway, so a small cache of its own costs little speed (npm run bench:memory:
   * the demo's heaviest read alike at 4 and 8). A larger installation whose hot pages do not fit raises it.
   */
  TRIAD_PGLITE_SHARED_BUFFERS_MB: int(1, 4096).default(4),
  /** Seconds between two vacuum rounds of the embedded database (lib/db/vacuum.ts); its first round comes two minutes after start, or sooner when this is shorter. */
  TRIAD_PGLITE_VACUUM_S: int(1, 86_400).default(600),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  TRIAD_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'letters, digits, colon, underscore or hyphen (at most 64)')
    .default('triad'),
  TRIAD_SECRET_KEY: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'must be 32 bytes as 64 hex characters or 44 base64 characters')
    .optional(),
  TRIAD_DEMO: flag.default(true),
  TRIAD_UPSTREAM_URL: url(['http:', 'https:']).optional(),
  TRIAD_UPSTREAM_API_KEY: z.string().min(1).optional(),
  TRIAD_UPSTREAM_TIMEOUT_MS: int(100, 600_000).default(60_000),
  /** Seconds between two health probes of every provider (GET {base_url}/models). */
  TRIAD_PROVIDER_PROBE_S: int(1, 3600).default(15),
  /** A completion is tried on another provider only within this time from its start (at most 3 attempts). */
  TRIAD_FAILOVER_DEADLINE_MS: int(100, 600_000).default(30_000),
  TRIAD_GUIDE_DELAY_MS: int(0, 1000).default(20),
  TRIAD_DEFAULT_RPM: int(1, 1_000_000).default(60),
  /** Chat completions (streamed or whole) one API key may have in flight at once; past it, 429. */
  TRIAD_MAX_CONCURRENT_PER_KEY: int(1, 100_000).default(16),
  /** Chat completions this instance serves at once; past it, 503 with Retry-After. */
  TRIAD_MAX_CONCURRENT: int(1, 1_000_000).default(512),
  TRIAD_LINK_RATE_PER_S: int(1, 1_000_000).default(60),
  /** Requests a second per organization token on the statistics and ingestion routes. */
  TRIAD_STATS_RATE_PER_S: int(1, 1_000_000).default(100),
  /** Requests a second per client address on routes reached without a token (alias retrieve, credentials check, demo). */
  TRIAD_ADDRESS_RATE_PER_S: int(1, 1_000_000).default(100),
  /** Failed alias passcode or JWT attempts allowed a minute, per alias and per client address; then 429 until the minute ends. */
  TRIAD_ACCESS_FAILURES_PER_MIN: int(1, 1_000_000).default(10),
  TRIAD_HEARTBEAT_TIMEOUT_S: int(1, 86_400).default(120),
  TRIAD_ALIAS_RETENTION_DAYS: int(0, 3650).default(30),
  /** Stored Responses API responses (design §16) are kept this many days, then deleted. */
  TRIAD_RESPONSES_TTL_DAYS: int(1, 3650).default(30),
  /** Node events are kept this many days (their sessions and hourly uptime stay); older ones are refused. */
  TRIAD_EVENT_RETENTION_DAYS: int(1, 3650).default(35),
  /** Chat usage rows older than this many days are rolled up into one row per kind of completion and hour. */
  TRIAD_USAGE_ROLLUP_DAYS: int(1, 3650).default(7),
  TRIAD_ALIAS_CACHE_TTL_MS: int(0, 60_000).default(1000),
  /**
   * How long a checked credential is remembered (0: never). Unset: 2 s on PostgreSQL, where another
   * instance or the CLI may change a credential behind this process; 60 s on the embedded database,
   * where every change is made by this server, which clears the cache at once (lib/auth/principal-cache.ts).
   */
  TRIAD_AUTH_CACHE_TTL_MS: int(0, 60_000).optional(),
  TRIAD_JWT_MAX_LIFETIME_S: int(60, 31_536_000).default(86_400),
  /** How many parameters a query string may have (refused with 400 by the server before it is parsed); at least the 101 of partner/details. */
  TRIAD_MAX_QUERY_PARAMS: int(101, 10_000).default(128),
  TRIAD_MAX_BODY_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  /** Chat completion bodies, which carry images, audio and files as data: URLs (design §13): 8 MiB unless said. */
  TRIAD_MAX_CHAT_BODY_BYTES: int(1024, 64 * 1024 * 1024).default(8 * 1024 * 1024),
  /** Time a client has to send a request's headers, and its whole request (headers and body); then 408 and the connection closes. */
  TRIAD_HEADERS_TIMEOUT_MS: int(1000, 600_000).default(10_000),
  TRIAD_REQUEST_TIMEOUT_MS: int(1000, 3_600_000).default(30_000),
  /**
   * How long an idle kept-alive connection stays open (and the `Keep-Alive: timeout=` Triad announces).
   * Above the 60 s that proxies and load balancers keep their upstream connections (nginx, AWS ALB):
   * with Node's 5 s, a proxy would reuse a connection Triad had just closed and answer its client 502.
   */
  TRIAD_KEEP_ALIVE_TIMEOUT_MS: int(1000, 600_000).default(72_000),
  /** Host names (comma-separated, no port) besides localhost, 127.0.0.1 and [::1] under which local-only routes answer. */
  TRIAD_ALLOWED_HOSTS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^(?:[a-z0-9.-]{1,253}|\[[0-9a-f:.]+\])$/, 'host names without port, comma-separated')))
    .default([]),
  TRIAD_METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  TRIAD_SHUTDOWN_DEADLINE_MS: int(0, 600_000).default(10_000),
  TRIAD_DIRECT_ROUTES: flag.default(true),
  /** The address other instances reach this one at, to forward requests for the node tunnels it holds (default http://<TRIAD_HOST or 127.0.0.1>:<PORT>). */
  TRIAD_INTERNAL_URL: url(['http:', 'https:']).optional(),
  /** Node tunnels (design §14): the largest frame accepted (a larger one closes the tunnel), requests one tunnel carries at once, tunnels one partner may hold. */
  TRIAD_TUNNEL_MAX_FRAME_BYTES: int(64 * 1024, 64 * 1024 * 1024).default(1024 * 1024),
  TRIAD_TUNNEL_MAX_STREAMS: int(1, 1024).default(64),
  TRIAD_TUNNEL_MAX_PER_PARTNER: int(1, 100_000).default(100),
  /** USD per 1 000 tokens a node earns by serving through its tunnel (its provider's price, which an administrator may change). */
  TRIAD_TUNNEL_PRICE_PER_1K: z
    .string()
    .regex(/^\d{1,12}(\.\d{1,12})?$/, 'a decimal such as 0.001')
    .default('0.001'),
  /** The network's share of what a node's completion costs, percent (design §17): the node earns the rest. */
  TRIAD_NETWORK_FEE_PERCENT: z
    .string()
    .regex(/^(100(\.0{1,6})?|\d{1,2}(\.\d{1,6})?)$/, 'a percentage from 0 to 100, such as 2.5')
    .default('0'),
  /** The output a budget reserves for when neither the request (max_tokens) nor the model's context length bounds it (design §17). */
  TRIAD_BUDGET_OUTPUT_TOKENS: int(1, 10_000_000).default(4096),
  /** How far over Triad's own token count a node's reported usage is believed (1.2: 20 % more, plus 32 tokens). */
  TRIAD_TUNNEL_USAGE_MARGIN: z.coerce.number().min(1).max(10).default(1.2),
  /** Traces (design §18, exported when OTEL_EXPORTER_OTLP_ENDPOINT is set) carry prompt and completion text only with 1. */
  TRIAD_TRACE_CONTENT: flag.default(false),
  /** Each completion's record in the request log (design §18) is kept this many days. */
  TRIAD_REQUEST_LOG_DAYS: int(1, 3650).default(14),
  TRIAD_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** `auto`: readable lines when stdout is a terminal, JSON lines otherwise; `json` or `text` always. */
  TRIAD_LOG_FORMAT: z.enum(['auto', 'json', 'text']).default('auto'),
});

export type Config = Omit<z.infer<typeof configSchema>, 'TRIAD_AUTH_CACHE_TTL_MS'> & {
  TRIAD_AUTH_CACHE_TTL_MS: number;
  /** Absolute data directory. */
  dataDir: string;
  /** Which storage engine is in use. */
  driver: 'pglite' | 'postgres';
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses an environment; throws a ConfigError naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const c = result.data;
  if (c.DATABASE_URL && !c.TRIAD_SECRET_KEY) {
    throw new ConfigError(
      'Invalid configuration: TRIAD_SECRET_KEY: required when DATABASE_URL is set (every instance must share one key; generate one with `openssl rand -hex 32`)',
    );
  }
  const driver = c.DATABASE_URL ? 'postgres' : 'pglite';
  return {
    ...c,
    TRIAD_AUTH_CACHE_TTL_MS: c.TRIAD_AUTH_CACHE_TTL_MS ?? (driver === 'postgres' ? 2000 : 60_000),
    dataDir: path.resolve(c.TRIAD_DATA_DIR),
    driver,
  };
}

let cached: Config | undefined;

/** This server's own address, as a process on this machine reaches it (a wildcard listening address as loopback). */
export function ownUrl(c: Config = config()): string {
  const host = c.TRIAD_HOST === '0.0.0.0' ? '127.0.0.1' : c.TRIAD_HOST === '::' ? '::1' : c.TRIAD_HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${c.PORT}`;
}

/** The process configuration, parsed once on first use (never at import: `next build` imports this module). */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}
