import type { IncomingMessage } from 'node:http';
import { config } from '@/lib/config';
import { mayBeUnstorable, storableText } from '@/lib/core/text';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}
export class MalformedJsonError extends Error {
  override name = 'MalformedJsonError';
}

/** A request's JSON body: its value, and the text it was parsed from (passed on as it is where nothing in it changes). */
export type JsonBody = { value: unknown; text: string };

/**
 * Reads a JSON body, refusing it once it passes TRIAD_MAX_BODY_BYTES: before reading when
 * Content-Length says so, else while streaming, so a huge body is never held in memory.
 */
export async function readJsonBody(request: Request, limit = config().TRIAD_MAX_BODY_BYTES): Promise<JsonBody> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > limit) throw new BodyTooLargeError(limit);
  if (!request.body) throw new MalformedJsonError('the request has no body');
  // A Content-Length within the limit (checked above) is held to by Node's HTTP parser: read it whole.
  if (Number.isFinite(declared)) return parseJson(new TextDecoder().decode(await request.arrayBuffer()));
  // Else (chunked) count as it streams.
  const chunks: Uint8Array[] = [];
  const reader = request.body.getReader();
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  return parseJson(new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks)));
}

/** The same as readJsonBody, for a request of Node's HTTP server (the server's direct dispatch). */
export async function readNodeJsonBody(req: IncomingMessage, limit = config().TRIAD_MAX_BODY_BYTES): Promise<JsonBody> {
  if (Number(req.headers['content-length'] ?? NaN) > limit) throw new BodyTooLargeError(limit);
  const whole = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (e?: Error) => {
      req.off('data', onData).off('end', onEnd).off('error', stop).off('close', onClose);
      if (e) reject(e);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit)
        stop(new BodyTooLargeError(limit)); // the rest is left for Node's server to discard
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onClose = () => {
      if (!req.complete) stop(new MalformedJsonError('the client went away while sending the body'));
    };
    req.on('data', onData).on('end', onEnd).on('error', stop).on('close', onClose);
  });
  return parseJson(new TextDecoder().decode(whole));
}

function parseJson(text: string): JsonBody {
  if (!text.trim()) throw new MalformedJsonError('the request body is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedJsonError('the request body is not valid JSON');
  }
  // PostgreSQL cannot store a NUL, nor (as jsonb) half a surrogate pair (lib/core/text.ts): refuse them
  // here rather than fail in the database. JSON can only spell either as an escape (\u0000, \ud800), so
  // a text without one needs no walk; nor does a short text need the walk's second purpose, refusing a
  // body nested too deeply for the schemas' recursion. (Python's json.dumps writes every character past
  // ASCII as an escape, a surrogate pair for an emoji: such a body is walked, and passes.)
  if (text.length > MAX_UNWALKED || mayBeUnstorable(text)) {
    let bad: string | undefined;
    try {
      bad = unstorable(value);
    } catch {
      throw new MalformedJsonError('the request body is nested too deeply');
    }
    if (bad?.includes('\u0000')) throw new MalformedJsonError('the request body contains a NUL character (\\u0000)');
    if (bad !== undefined)
      throw new MalformedJsonError('the request body contains half a surrogate pair (a \\ud800–\\udfff escape without its other half)');
  }
  return { value, text };
}

/** Below this many characters a body cannot nest deeply enough to exhaust the stack (half of them would be brackets). */
const MAX_UNWALKED = 4096;

/** The first string (or key) in `value` that PostgreSQL cannot store, if any. */
function unstorable(value: unknown): string | undefined {
  if (typeof value === 'string') return storableText(value) ? undefined : value;
  if (Array.isArray(value)) {
    for (const v of value) {
      const bad = unstorable(v);
      if (bad !== undefined) return bad;
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const bad = storableText(k) ? unstorable(v) : k;
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
}
