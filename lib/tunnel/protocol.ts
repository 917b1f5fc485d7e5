import { z } from 'zod';
import { storableText } from '@/lib/core/text';

/*
 * The tunnel between a node agent and Triad (design §14): one WebSocket, text frames of JSON, many
 * requests multiplexed by id. Shared by Triad (./registry.ts, ./sessions.ts) and the agent
 * (lib/node-agent/), which is bundled on its own: nothing here reaches into the rest of Triad (but
 * lib/core/text.ts, which imports nothing).
 *
 *   agent → Triad   hello   {t, node, name?, models, max_concurrency, window, agent, version?, endpoints?}   first frame, once
 *   Triad → agent   welcome {t, provider, window, max_frame, version?}
 *   Triad → agent   open    {t, id, path?, headers?} a request begins; its body (the JSON) follows as data, then end
 *   agent → Triad   head    {t, id, status, retry_after?}
 *   both            data    {t, id, d}               a piece of a body (at most the receiver's credit)
 *   both            end     {t, id}
 *   both            win     {t, id, n}               the receiver read n more characters: credit for n
 *   Triad → agent   cancel  {t, id}                  the client went away: abort the model server's request
 *   agent → Triad   fail    {t, id, message}         the model server could not be reached, or broke
 *   agent → Triad   models  {t, models}              the model server's list changed
 *   agent → Triad   drain   {t}                      finishing what is in flight; send nothing new
 *
 * Liveness is WebSocket ping/pong (Triad pings every 10 s). Flow control: each side may send on a
 * request at most what the other granted (the `window` of its hello/welcome, then `win` frames), so
 * neither buffers without bound for a slow reader. Credit is counted in characters of `d`.
 */
/**
 * Versions: 1 carries chat completions only (an `open` is a POST of /chat/completions). 2 names the
 * request in its `open` — the path under the model server's base (one of TUNNEL_PATHS) and the headers
 * to pass on (TUNNEL_HEADERS) — so that embeddings, and Responses or Messages for a model server that
 * speaks them, go through a node too. 3 adds the trace context (TRACE_HEADERS, design §18) to the
 * headers an `open` carries, which the agent passes to its model server and joins its own spans to
 * (an agent of version 2 would refuse the frame: it gets none). The hello says the agent's version
 * (none: 1), the welcome the one both speak (the lower); Triad sends an agent of version 1 nothing but
 * chat completions.
 */
export const VERSION = 3;
export const PROTOCOL = `triad-tunnel.v${VERSION}`;
/** What an `open` of version 2 may ask of the model server (all POSTs). */
export const TUNNEL_PATHS = ['/chat/completions', '/embeddings', '/responses', '/messages', '/messages/count_tokens'] as const;
export type TunnelPath = (typeof TUNNEL_PATHS)[number];
/** The W3C trace context, which an `open` of version 3 carries (design §18). */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;
/** The request headers an `open` may carry to the model server (the body's type is always JSON). */
export const TUNNEL_HEADERS = ['anthropic-version', 'anthropic-beta', 'openai-beta', ...TRACE_HEADERS] as const;
/** Where Triad takes a node agent's tunnel: a WebSocket upgrade of GET, the partner secret as `Authorization: Bearer`. */
export const TUNNEL_PATH = '/api/v1/node/connect';
/** The agent's hello must come within this time of the upgrade, or the tunnel is closed (CLOSE.protocol). */
export const HELLO_MS = 10_000;

/** Close codes (4000–4999 are the application's): the agent decides from them whether to reconnect. */
export const CLOSE = {
  /** A frame that is not the protocol, too large, or over a credit or stream limit. */
  protocol: 4400,
  /** The partner secret is wrong or revoked (also rotated: the agent stops). */
  unauthorized: 4401,
  /** Another connection for the same node replaced this one. */
  replaced: 4409,
  /** Too many tunnels for the partner. */
  tooMany: 4429,
  /** Two pings unanswered. */
  timeout: 4408,
  /** Triad is shutting down: reconnect (to another instance, or later). */
  goingAway: 1001,
} as const;

const id = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31);
/**
 * What a node names itself and its models with: 1–200 characters Triad can store (lib/core/text.ts), in
 * words a partner reads in the agent's one line (its flags are checked by these too).
 */
const label = (string: z.ZodString) =>
  string
    .min(1, 'must not be empty')
    .max(200, 'at most 200 characters')
    .refine(storableText, 'must not hold a NUL character or half a surrogate pair');
/** A model a node serves, as its hello and `models` frames name it (the agent leaves out what this refuses). */
export const modelName = label(z.string());
const modelList = z.array(modelName).max(500);

export const helloFrame = z.object({
  t: z.literal('hello'),
  node: label(z.string().trim()),
  name: label(z.string().trim()).optional(),
  models: modelList,
  max_concurrency: z.number().int().min(1).max(1024),
  window: z
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024),
  agent: z.string().max(100).optional(),
  version: z.number().int().min(1).max(1000).optional(),
  /** The APIs beyond chat completions its model server speaks natively (lib/chat/capabilities.ts NATIVE_ENDPOINTS; others ignored). */
  endpoints: z.array(z.string().max(40)).max(10).optional(),
});
export type Hello = z.infer<typeof helloFrame>;

export const frame = z.discriminatedUnion('t', [
  helloFrame,
  z.object({
    t: z.literal('welcome'),
    provider: z.string(),
    window: z.number().int().min(1024),
    max_frame: z.number().int(),
    version: z.number().int().min(1).optional(),
  }),
  z.object({
    t: z.literal('open'),
    id,
    path: z.enum(TUNNEL_PATHS).optional(),
    headers: z.partialRecord(z.enum(TUNNEL_HEADERS), z.string().max(1000)).optional(),
  }),
  z.object({ t: z.literal('head'), id, status: z.number().int().min(100).max(599), retry_after: z.number().optional() }),
  z.object({ t: z.literal('data'), id, d: z.string() }),
  z.object({ t: z.literal('end'), id }),
  z.object({ t: z.literal('win'), id, n: z.number().int().min(1) }),
  z.object({ t: z.literal('cancel'), id }),
  z.object({ t: z.literal('fail'), id, message: z.string().max(2000) }),
  z.object({ t: z.literal('models'), models: modelList }),
  z.object({ t: z.literal('drain') }),
]);
export type Frame = z.infer<typeof frame>;

/**
 * A frame from its text, or why the text is not one, as the close reason the caller closes the tunnel
 * with (`not a frame of the protocol (models.0: must not …)`).
 */
export function parseFrame(text: string): Frame | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not a frame of the protocol: not JSON';
  }
  const r = frame.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const why = issue ? `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}` : '';
  // A close reason holds at most 123 bytes; the paths are the schema's keys and indexes, the messages its own.
  return `not a frame of the protocol${why ? ` (${why.slice(0, 90)})` : ''}`;
}
