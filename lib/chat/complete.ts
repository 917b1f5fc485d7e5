import { config } from '@/lib/config';
import type { Db } from '@/lib/db/client';
import { ApiError } from '@/lib/core/errors';
import { internalChatError } from '@/lib/errors/chat';
import type { Reply, ReplyStream } from '@/lib/core/reply';
import { chatDialect } from '@/lib/dialects/chat';
import type { Dialect, Ledger } from '@/lib/dialects/dialect';
import { log } from '@/lib/log';
import type { TokenUsage, Wire, WireChoice } from '@/lib/providers/client';
import { recordEarnings } from '@/lib/providers/earnings';
import { routeCompletion, type Target } from '@/lib/providers/router';
import type { Tenant } from '@/lib/providers/tenancy';
import { guideRefusal, needsOf } from './capabilities';
import { GUIDE_MODEL } from './guide';
import { guideOf, isGuide } from './models';
import { takeCompletionSlot } from './concurrency';
import { type ChatRequest, plainMessages } from './schema';
import { countPromptTokens, countTokens } from './tokens';
import { recordLatency } from './latency';
import { recordUsage } from './usage';
import { streamClosed, streamOpened } from '@/lib/metrics';

/*
 * One completion, whatever the API surface (design §16): pick the model server (triad-guide or a
 * provider's), send it the request in Chat Completions, and hand its reply — whole, or chunk by chunk —
 * to the request's dialect (lib/dialects/), which writes it in the client's format. Errors before the
 * first byte get their HTTP status; an error after it ends the stream as the dialect says. A client
 * that goes away aborts the model server's request. Usage, latency and a node's earnings are recorded
 * here, once, from the server's usage, else counted (content, tool calls, reasoning).
 */
export type CompletionCall = {
  db: Db;
  /** The request in Chat Completions, as the model servers get it (a dialect translated it, or the client sent it so). */
  request: ChatRequest;
  /** How the client is answered. */
  dialect: Dialect;
  apiKeyId: string;
  /** The key's organization: which providers may serve it (design §20). */
  tenant: Tenant;
  platform: string | null;
  signal: AbortSignal;
  /** performance.now() when the call began (its latency is measured from there). */
  startedAt?: number;
};

/** A Chat Completions call: the request and, as the client sent it, its JSON text (passed on as it is when it can be). */
export type ChatCall = Omit<CompletionCall, 'dialect'> & { text?: string };

/** Who served a completion, in the X-Triad-Provider header: a provider's name, or `triad-guide`. */
export const PROVIDER_HEADER = 'X-Triad-Provider';

export const createChatCompletion = (call: ChatCall): Promise<Reply> =>
  complete({ ...call, dialect: chatDialect(call.request, call.text) });

export async function complete(call: CompletionCall): Promise<Reply> {
  call.startedAt ??= performance.now();
  let release = () => {};
  try {
    release = takeCompletionSlot(call.apiKeyId);
    const { request } = call;
    let served: { reply: Reply; provider: string };
    if (isGuide(request.model)) {
      const refused = guideRefusal(request);
      if (refused) throw refused;
      served = { reply: await answer(call, { client: guideOf(), model: GUIDE_MODEL, provider: null }, () => {}), provider: GUIDE_MODEL };
    } else {
      served = await routeCompletion(
        call.db,
        request.model,
        call.tenant,
        call.signal,
        (target, done) => answer(call, target, done),
        needsOf(request),
      );
    }
    const { reply, provider } = served;
    if (!('stream' in reply)) release();
    else reply.stream = withEnd(reply.stream, release);
    reply.headers = { ...reply.headers, [PROVIDER_HEADER]: provider };
    return reply;
  } catch (e) {
    release();
    // An error reply to an accepted request (no provider could answer, too many in flight…) is counted
    // as outcome `failed`, with its latency and no tokens; an unknown model's name is not kept.
    if (e instanceof ApiError && e.code !== 'model_not_found') recordFailure(call);
    throw e;
  }
}

function recordFailure(call: CompletionCall) {
  const { db, apiKeyId, request, platform } = call;
  recordUsage(db, {
    apiKeyId,
    model: request.model,
    promptTokens: 0,
    completionTokens: 0,
    stream: request.stream,
    outcome: 'failed',
    platform,
  });
  recordLatency(db, { apiKeyId, model: request.model, kind: 'total', ms: performance.now() - call.startedAt! });
}

/** A stream that calls `end` once when it is over (run to its end, or cancelled). */
function withEnd(stream: ReplyStream, end: () => void): ReplyStream {
  let ended = false;
  const once = () => {
    if (ended) return;
    ended = true;
    end();
  };
  return {
    run: (send) => stream.run(send).finally(once),
    cancel: (reason) => {
      stream.cancel(reason);
      once();
    },
  };
}

/**
 * The completion on one model server, as a whole reply or a stream. Throws, before anything is sent, when
 * it fails before its first chunk (the router then tries another provider); `done` is called
 * when a reply it returns is over (at once for a whole reply, at its end for a stream).
 */
async function answer(
  call: CompletionCall,
  target: Pick<Target, 'client' | 'model'> & { provider: Target['provider'] | null },
  done: () => void,
): Promise<Reply> {
  const { client } = target;
  const completion = completionOf(call, target);
  const outgoing = call.dialect.outgoing(target.model);

  // Not streaming: one reply (the client's going away aborts it through the request's own signal).
  if (!call.request.stream) {
    const reply = await client.complete({ ...outgoing, signal: call.signal });
    done();
    completion.absorbWhole(reply);
    return call.dialect.whole(reply, completion);
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
    stream: eventStream(completion, call.dialect, { first, chunks, abort, detach: () => (detach(), done()) }),
  };
}

type Completion = ReturnType<typeof completionOf>;

/** One completion's accounts: what its replies held so far, how it ended, its usage; recorded once. */
function completionOf(call: CompletionCall, target: { provider: Target['provider'] | null }) {
  const { request } = call;
  const state = {
    /** What was generated, to count when the server reports no usage: text, reasoning, refusals, tool calls (by choice and index). */
    generated: { content: '', reasoning: '', refusal: '', calls: new Map<string, { name: string; args: string }>() },
    finish: null as string | null,
    usage: null as TokenUsage | null,
    firstContentAt: null as number | null,
  };

  const absorb = (choice: WireChoice, message: WireChoice['message']) => {
    if (message) {
      const g = state.generated;
      const before = g.content.length + g.reasoning.length + g.refusal.length + g.calls.size;
      if (typeof message.content === 'string') g.content += message.content;
      if (typeof message.reasoning_content === 'string') g.reasoning += message.reasoning_content;
      if (typeof message.refusal === 'string') g.refusal += message.refusal;
      if (Array.isArray(message.tool_calls)) {
        for (const [i, c] of message.tool_calls.entries()) {
          const key = `${choice.index ?? 0}:${c.index ?? i}`;
          const call = g.calls.get(key) ?? { name: '', args: '' };
          call.name += c.function?.name ?? '';
          call.args += c.function?.arguments ?? '';
          g.calls.set(key, call);
        }
        state.firstContentAt ??= performance.now();
      }
      if (g.content.length + g.reasoning.length + g.refusal.length + g.calls.size > before) state.firstContentAt ??= performance.now();
    }
    if (choice.finish_reason && (choice.index ?? 0) === 0) state.finish ??= choice.finish_reason;
  };

  /**
   * Usage as the model server reported it, else counted with the tokenizer. A node's tunnel is
   * believed only up to TRIAD_TUNNEL_USAGE_MARGIN over Triad's own count (plus 32 tokens), so that a
   * node cannot inflate what it earns (design §14).
   */
  const usage = (): TokenUsage => {
    if (!state.usage) return counted();
    if (!target.provider?.tunnel) return state.usage;
    const own = counted();
    return state.usage.total_tokens <= own.total_tokens * config().TRIAD_TUNNEL_USAGE_MARGIN + 32 ? state.usage : own;
  };
  /** Usage counted with the tokenizer, over the prompt and what was generated. */
  const counted = (): TokenUsage => {
    const prompt = countPromptTokens(plainMessages(request));
    const g = state.generated;
    let completion = countTokens(g.content) + countTokens(g.reasoning) + countTokens(g.refusal);
    for (const call of g.calls.values()) completion += countTokens(call.name) + countTokens(call.args);
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };
  const ledger: Ledger & {
    absorbWhole(wire: Wire): void;
    absorbChunk(wire: Wire): void;
    record(outcome: string): void;
  } = {
    // (Methods, not getters: see lib/http/request-view.ts.)
    finish: (): string => state.finish ?? 'stop',
    finished: () => state.finish !== null,
    hasUsage: () => state.usage !== null,
    usage,
    /** A whole reply: absorbed and recorded. */
    absorbWhole({ value: reply }: Wire) {
      for (const choice of reply.choices ?? []) absorb(choice, choice.message);
      if (reply.usage) state.usage = reply.usage;
      this.record(this.finish());
    },
    /** A chunk of a stream. */
    absorbChunk({ value: chunk }: Wire) {
      for (const choice of chunk.choices ?? []) absorb(choice, choice.delta);
      if (chunk.usage) state.usage = chunk.usage;
    },
    record(outcome: string) {
      const u = usage();
      recordUsage(call.db, {
        apiKeyId: call.apiKeyId,
        model: request.model,
        promptTokens: u.prompt_tokens,
        completionTokens: u.completion_tokens,
        stream: request.stream,
        outcome,
        platform: call.platform,
      });
      const now = performance.now();
      const started = call.startedAt ?? now;
      recordLatency(call.db, { apiKeyId: call.apiKeyId, model: request.model, kind: 'total', ms: now - started });
      if (request.stream && state.firstContentAt !== null) {
        recordLatency(call.db, { apiKeyId: call.apiKeyId, model: request.model, kind: 'ttft', ms: state.firstContentAt - started });
      }
      // A node's provider earns for what it served (not for a reply that failed part-way).
      const p = target.provider;
      if (p?.nodeId && outcome !== 'error') recordEarnings(call.db, { nodeId: p.nodeId, price: p.price, tokens: u.total_tokens });
    },
  };
  return ledger;
}

/**
 * The stream of a completion: what the dialect opens with, each of the server's chunks as the dialect
 * writes it, and its close; an error after the first byte as the dialect ends a failed stream.
 * Recorded once, with how it ended.
 */
function eventStream(
  completion: Completion,
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
        completion.absorbChunk(r.value);
        const out = dialect.chunk(r.value, completion);
        if (out) await send(out);
      }
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = completion.finish();
      await send(await dialect.close(completion));
    } catch (e) {
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = 'error';
      await sendError(send, dialect, completion, e);
    } finally {
      streamClosed();
      detach();
      completion.record(outcome);
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
