import { ApiError } from '@/lib/core/errors';
import type { Reply, ReplyStream } from '@/lib/core/reply';
import { internalChatError } from '@/lib/errors/chat';
import { log } from '@/lib/log';
import { streamClosed, streamOpened } from '@/lib/metrics';
import type { CompletionCall } from './call';
import type { Dialect, Ledger, NativeDialect } from './dialect';
import { type Accounts, openLedger } from './ledger';
import type { Target } from './route';

/*
 * One attempt at a completion on one model server (design §16): the dialect's request sent under the
 * server's own model name, and the reply — whole, or chunk by chunk — handed to the dialect, which
 * writes it in the client's format, while the ledger keeps the accounts. It throws, before anything is
 * sent to the client, when the server fails before its first chunk (the router then tries another);
 * `done` is called when a reply it returns is over (at once for a whole reply, at its end for a stream).
 */
export async function attempt(call: CompletionCall, target: Target, done: () => void): Promise<Reply> {
  const { client, provider } = target;
  const ledger = openLedger(call, provider);
  const native = call.dialect.native;
  if (native && target.endpoints.includes(native.endpoint)) return passThrough(call, target, native, ledger, done);
  const outgoing = call.dialect.outgoing(target.model);

  // Not streaming: one reply (the client's going away aborts it through the request's own signal).
  if (!call.request.stream) {
    const reply = await client.complete({ ...outgoing, signal: call.signal });
    done();
    ledger.absorbWhole(reply);
    return call.dialect.whole(reply, ledger);
  }

  // A stream: the dialect opens it, writes each chunk (absorbed into the ledger first) and closes it.
  return streamed(call, done, ledger, call.dialect.streamHeaders, (signal) => client.stream({ ...outgoing, signal }), {
    open: () => call.dialect.open(),
    item: (wire) => {
      ledger.absorbChunk(wire);
      return call.dialect.chunk(wire, ledger);
    },
    close: () => call.dialect.close(ledger),
  });
}

/**
 * The client's request passed through to a server that speaks its dialect natively (design §16):
 * the server's reply, whole or event by event, with only what must be ours rewritten by the dialect.
 */
async function passThrough(call: CompletionCall, target: Target, native: NativeDialect, ledger: Accounts, done: () => void) {
  const outgoing = native.outgoing(target.model);
  if (!call.request.stream) {
    const { value } = await target.client.post({ ...outgoing, signal: call.signal });
    done();
    const reply = await native.whole(value, ledger);
    ledger.record(ledger.finish());
    return reply;
  }
  return streamed(call, done, ledger, native.streamHeaders, (signal) => target.client.relay({ ...outgoing, signal }), {
    open: () => '',
    item: (data) => native.event(data, ledger),
    close: () => native.close(ledger),
  });
}

/** How a stream's items become the client's text. */
type Writer<T> = { open(): string; item(x: T): string | null; close(): string | Promise<string> };

/**
 * A streamed reply: it stops when the client goes away, or when the reply stream is cancelled. The
 * first item decides the status: a model server that fails at once gets a proper HTTP error (thrown,
 * so that the router may try another).
 */
async function streamed<T>(
  call: CompletionCall,
  done: () => void,
  ledger: Accounts,
  headers: Record<string, string>,
  start: (signal: AbortSignal) => AsyncGenerator<T[]>,
  writer: Writer<T>,
): Promise<Reply> {
  const abort = new AbortController();
  const onClientGone = () => abort.abort(call.signal.reason);
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const detach = () => call.signal.removeEventListener('abort', onClientGone);
  const items = start(abort.signal);
  let first: IteratorResult<T[]>;
  try {
    first = await items.next();
  } catch (e) {
    detach();
    throw e;
  }
  return {
    status: 200,
    headers,
    stream: relay(ledger, call.dialect, writer, { first, items, abort, detach: () => (detach(), done()) }),
  };
}

/**
 * The stream of a completion: what the writer opens with, each of the server's items as it writes
 * them, and its close; an error after the first byte as the dialect ends a failed stream. Recorded
 * once, with how it ended.
 */
function relay<T>(
  ledger: Accounts,
  dialect: Dialect,
  writer: Writer<T>,
  source: { first: IteratorResult<T[]>; items: AsyncGenerator<T[]>; abort: AbortController; detach: () => void },
): ReplyStream {
  const { first, items, abort, detach } = source;
  const run = async (send: (chunk: string) => Promise<void> | void) => {
    let outcome = 'stop';
    streamOpened();
    try {
      const opening = writer.open();
      if (opening) await send(opening);
      // The server's items a batch at a time (those of one read), each written as it comes.
      for (let r = first; !r.done; r = await items.next())
        for (const item of r.value) {
          const out = writer.item(item);
          // Waited for only when the client's socket is full (`send` then returns a promise): a chunk
          // that leaves at once costs no turn of the microtask queue.
          const full = out ? send(out) : undefined;
          if (full) await full;
        }
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = ledger.finish();
      const closing = await writer.close();
      if (closing) await send(closing);
    } catch (e) {
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = 'error';
      await sendError(send, dialect, ledger, e);
    } finally {
      streamClosed();
      detach();
      ledger.record(outcome);
    }
  };
  const cancel = (reason?: unknown) => {
    abort.abort(reason);
    void items.return(undefined);
    detach(); // also when the stream never ran (its client went away first)
  };
  return { run, cancel };
}

/** An error after the first byte, ended as the dialect ends a failed stream. */
async function sendError(send: (chunk: string) => Promise<void> | void, dialect: Dialect, ledger: Ledger, e: unknown) {
  const err = e instanceof ApiError ? e : internalChatError();
  if (!(e instanceof ApiError)) log.error('completion stream failed', { error: (e as Error)?.message });
  try {
    await send(dialect.fail(err, ledger));
  } catch {
    // the client is gone
  }
}
