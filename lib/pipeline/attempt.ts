import { ApiError } from '@/lib/core/errors';
import type { Reply, ReplyStream } from '@/lib/core/reply';
import { internalChatError } from '@/lib/errors/chat';
import { log } from '@/lib/log';
import { streamClosed, streamOpened } from '@/lib/metrics';
import type { Wire } from '@/lib/providers/client';
import type { CompletionCall } from './call';
import type { Dialect, Ledger } from './dialect';
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
  const outgoing = call.dialect.outgoing(target.model);

  // Not streaming: one reply (the client's going away aborts it through the request's own signal).
  if (!call.request.stream) {
    const reply = await client.complete({ ...outgoing, signal: call.signal });
    done();
    ledger.absorbWhole(reply);
    return call.dialect.whole(reply, ledger);
  }

  // A stream: it stops when the client goes away, or when the reply stream is cancelled.
  const abort = new AbortController();
  const onClientGone = () => abort.abort(call.signal.reason);
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const detach = () => call.signal.removeEventListener('abort', onClientGone);
  const chunks = client.stream({ ...outgoing, signal: abort.signal });
  // The first chunk decides the status: a model server that fails at once gets a proper HTTP error.
  let first: IteratorResult<Wire>;
  try {
    first = await chunks.next();
  } catch (e) {
    detach();
    throw e;
  }
  return {
    status: 200,
    headers: call.dialect.streamHeaders,
    stream: relay(ledger, call.dialect, { first, chunks, abort, detach: () => (detach(), done()) }),
  };
}

/**
 * The stream of a completion: what the dialect opens with, each of the server's chunks as the dialect
 * writes it, and its close; an error after the first byte as the dialect ends a failed stream.
 * Recorded once, with how it ended.
 */
function relay(
  ledger: Accounts,
  dialect: Dialect,
  source: { first: IteratorResult<Wire>; chunks: AsyncGenerator<Wire>; abort: AbortController; detach: () => void },
): ReplyStream {
  const { first, chunks, abort, detach } = source;
  const run = async (send: (chunk: string) => Promise<void> | void) => {
    let outcome = 'stop';
    streamOpened();
    try {
      const opening = dialect.open();
      if (opening) await send(opening);
      for (let r = first; !r.done; r = await chunks.next()) {
        ledger.absorbChunk(r.value);
        const out = dialect.chunk(r.value, ledger);
        if (out) await send(out);
      }
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = ledger.finish();
      await send(await dialect.close(ledger));
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
    void chunks.return(undefined);
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
