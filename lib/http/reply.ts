import type { ServerResponse } from 'node:http';

import type { Reply } from '@/lib/core/reply';

/*
 * How a Reply (lib/core/reply.ts) leaves: `toResponse` makes it a Web Response for Next's router,
 * `sendNodeReply` writes it straight to Node's response for the server's direct dispatch of the chat
 * completion route (lib/server/direct-routes.ts). Both send the same status, headers and bytes.
 */
export type { Reply } from '@/lib/core/reply';

/** What a stream may queue for a slow reader on the Web door before its producer waits (Node's door waits on `drain`). */
const STREAM_BUFFER_BYTES = 64 * 1024;

const jsonHead = (reply: Reply) => ({ ...reply.headers, 'content-type': 'application/json' });

/** The reply as a Web Response. */
export function toResponse(reply: Reply): Response {
  if ('json' in reply) {
    const text = JSON.stringify(reply.json);
    return new Response(text, { status: reply.status, headers: jsonHead(reply) });
  }
  if ('text' in reply) return new Response(reply.text, { status: reply.status, headers: reply.headers });
  const { run, cancel } = reply.stream;
  const encoder = new TextEncoder();
  // At the client's pace: past STREAM_BUFFER_BYTES queued, the producer waits until the reader pulls.
  let wake: (() => void) | null = null;
  const resume = () => {
    wake?.();
    wake = null;
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Not awaited: a stream's pull() is called only once start() has settled.
        void run(async (chunk) => {
          try {
            controller.enqueue(encoder.encode(chunk));
          } catch {
            return; // cancelled: the client is gone
          }
          if ((controller.desiredSize ?? 1) <= 0) await new Promise<void>((r) => (wake = r));
        }).finally(() => {
          try {
            controller.close();
          } catch {
            // already closed by a cancel
          }
        });
      },
      pull: resume,
      cancel(reason) {
        resume();
        cancel(reason);
      },
    },
    { highWaterMark: STREAM_BUFFER_BYTES, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { status: reply.status, headers: reply.headers });
}

/**
 * Writes the reply to Node's response, after `baseHeaders` (those the server adds to every reply).
 * A stream leaves as it is produced, at the client's pace; `gone` (the client closed the connection)
 * cancels it. Chunks produced in the same tick leave in one write (one packet).
 *
 * That batching is ours, not `res.cork()`: since Node 21 (nodejs/node#50167) a corked response keeps
 * chunked writes in a buffer of its own, and `end()` before the matching `uncork()` drops them, so a
 * stream ending in the tick of its last chunks lost them (on Node 22 and 24: no `[DONE]`).
 */
export async function sendNodeReply(res: ServerResponse, reply: Reply, baseHeaders: [string, string][], gone: AbortSignal): Promise<void> {
  // A whole body is made before any header is given: one that cannot be written (JSON of a BigInt, say)
  // throws with nothing sent, and the caller can still answer with an error.
  const body = 'json' in reply ? JSON.stringify(reply.json) : 'text' in reply ? reply.text : undefined;
  // Chunked, as Next's router sends every reply (it drops a Response's Content-Length), even when the
  // whole body is known at end() (which then sends head and body in one packet). Not to HTTP/1.0 clients,
  // nor for HEAD (no body: Next's router sends neither length nor encoding then).
  const chunked = res.useChunkedEncodingByDefault && res.req?.method !== 'HEAD';
  res.writeHead(reply.status, headList(baseHeaders, reply.headers, 'json' in reply, chunked));
  if (!('stream' in reply)) return void res.end(body);
  const { run, cancel } = reply.stream;
  const onGone = () => cancel(gone.reason);
  gone.addEventListener('abort', onGone, { once: true });
  let pending = '';
  let scheduled = false;
  const flush = () => {
    const text = pending;
    pending = '';
    if (text && !res.destroyed) res.write(text);
  };
  const flushLater = () => {
    scheduled = false;
    flush();
  };
  try {
    await run((chunk) => {
      if (res.destroyed) return;
      pending += chunk;
      if (pending.length >= res.writableHighWaterMark)
        flush(); // a producer that never yields still meets backpressure
      else if (!scheduled) {
        scheduled = true;
        process.nextTick(flushLater);
      }
      // What the client has not taken yet stays bounded: wait while the socket's buffer is full.
      if (res.writableNeedDrain) return drained(res);
    });
    const last = pending;
    pending = '';
    res.end(last);
  } catch {
    // Cannot happen by contract; if it does, cut the connection rather than end the reply cleanly,
    // so that the client cannot mistake a truncated reply for a whole one.
    res.destroy();
  } finally {
    gone.removeEventListener('abort', onGone);
  }
}

/**
 * The reply's headers as one flat list, as `writeHead` takes them (Node then validates and writes them
 * as they are, without the object of headers `setHeader` keeps, a third of the cost): those of every
 * reply, then the encoding, the reply's own (one of the same name, in any case, replaces the base's), and
 * a JSON body's Content-Type.
 */
function headList(base: [string, string][], own: Record<string, string>, json: boolean, chunked: boolean): string[] {
  const names = Object.keys(own);
  const lower = names.map((n) => n.toLowerCase());
  const list: string[] = [];
  for (const [k, v] of base) if (!lower.length || !lower.includes(k.toLowerCase())) list.push(k, v);
  if (chunked) list.push('transfer-encoding', 'chunked');
  for (let i = 0; i < names.length; i++) if (!json || lower[i] !== 'content-type') list.push(names[i]!, own[names[i]!]!);
  if (json) list.push('content-type', 'application/json');
  return list;
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
