import { config } from '@/lib/config';
import type { Db } from '@/lib/db/client';
import { ApiError } from '@/lib/core/errors';
import { randomId } from '@/lib/core/random-id';
import { chatErrorBody, internalChatError } from '@/lib/errors/chat';
import type { Reply, ReplyStream } from '@/lib/core/reply';
import { log } from '@/lib/log';
import type { ModelCall, TokenUsage, Wire, WireChoice, WireReply } from '@/lib/providers/client';
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
import { restamped, withField } from './wire-text';
import { streamClosed, streamOpened } from '@/lib/metrics';

/*
 * One chat completion: pick the model server (triad-guide or a provider's), send it the request as the
 * client wrote it (design §13: its own model name; in a stream, Triad's own request for usage), and
 * pass its reply on as it wrote it — one JSON object (interface 2.2) or Server-Sent Events (interface
 * 2.3, design §4: ending with a finish chunk, the usage chunk when the client asked, `data: [DONE]`) —
 * with this completion's id and the model name the client used. Errors before the first byte get their
 * HTTP status; an error after it ends the stream with `data: {"error":…}` and `data: [DONE]`. A client
 * that goes away aborts the model server's request. Usage, latency and a node's earnings are recorded
 * from the server's usage, else counted (content, tool calls, reasoning).
 */
export type ChatCall = {
  db: Db;
  request: ChatRequest;
  /** The request's JSON text as the client sent it (passed on as it is when it says what the server must get). */
  text?: string;
  apiKeyId: string;
  /** The key's organization: which providers may serve it (design §20). */
  tenant: Tenant;
  platform: string | null;
  signal: AbortSignal;
  /** performance.now() when the call began (its latency is measured from there). */
  startedAt?: number;
};

const JSON_HEADERS = { 'content-type': 'application/json' };

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

/** Who served a completion, in the X-Triad-Provider header: a provider's name, or `triad-guide`. */
export const PROVIDER_HEADER = 'X-Triad-Provider';

export async function createChatCompletion(call: ChatCall): Promise<Reply> {
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

function recordFailure(call: ChatCall) {
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
  call: ChatCall,
  target: Pick<Target, 'client' | 'model'> & { provider: Target['provider'] | null },
  done: () => void,
): Promise<Reply> {
  const { client } = target;
  const completion = completionOf(call, target);

  // Not streaming: one reply (the client's going away aborts it through the request's own signal).
  if (!call.request.stream) {
    const reply = await client.complete({ ...completion.outgoing(), signal: call.signal });
    done();
    return completion.whole(reply);
  }

  // A stream: it stops when the client goes away, or when the reply stream is cancelled.
  const abort = new AbortController();
  const onClientGone = () => abort.abort(call.signal.reason);
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const detach = () => call.signal.removeEventListener('abort', onClientGone);
  const chunks = client.stream({ ...completion.outgoing(), signal: abort.signal });
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
    headers: SSE_HEADERS,
    stream: eventStream(completion, { first, chunks, abort, detach: () => (detach(), done()) }),
  };
}

type Completion = ReturnType<typeof completionOf>;

/** One completion: its id, what its replies held so far (for accounting), and how a server's reply objects are passed on. */
function completionOf(call: ChatCall, target: { model: string; provider: Target['provider'] | null }) {
  const { request } = call;
  const id = `chatcmpl-${randomId(12)}`;
  const wantsUsage = !!request.stream_options?.include_usage;
  const state = {
    /** What was generated, to count when the server reports no usage: text, reasoning, refusals, tool calls (by choice and index). */
    generated: { content: '', reasoning: '', refusal: '', calls: new Map<string, { name: string; args: string }>() },
    finish: null as string | null,
    usage: null as TokenUsage | null,
    created: 0,
    firstContentAt: null as number | null,
    chunks: 0,
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
  const chunkOf = (choices: WireChoice[], extra: object = {}): string =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: state.created || Math.floor(Date.now() / 1000),
      model: request.model,
      choices,
      ...extra,
    });
  return {
    request,
    /**
     * The request for the model server: the client's, under the server's own model name; a stream asks
     * for usage. The client's text goes as it is when that is what it says (the same model name; for a
     * stream, usage asked already or added at its end), else the object is encoded.
     */
    outgoing(): Omit<ModelCall, 'signal'> {
      const body: Record<string, unknown> = { ...request, model: target.model };
      if (request.stream) body.stream_options = { ...request.stream_options, include_usage: true };
      const text = call.text;
      if (text === undefined || target.model !== request.model) return { body };
      if (!request.stream || request.stream_options?.include_usage === true) return { body, json: text };
      if (!('stream_options' in request)) return { body, json: withField(text, 'stream_options', { include_usage: true }) ?? undefined };
      return { body };
    },
    // (Methods, not getters: see lib/http/request-view.ts.)
    /** How the server said the completion ended (`stop` when it did not say). */
    finish: (): string => state.finish ?? 'stop',
    /** Whether the server sent a finish reason. */
    finished: () => state.finish !== null,
    /** Whether the server reported usage. */
    hasUsage: () => state.usage !== null,
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
    /**
     * The whole reply as the server wrote it (interface 2.2), with this completion's id and the client's
     * model name, and usage (counted when it had none); recorded. Its text is passed on with only those
     * two values rewritten where it can be (wire-text.ts), else the object is encoded.
     */
    whole({ value: reply, text }: Wire): Reply {
      for (const choice of reply.choices ?? []) absorb(choice, choice.message);
      if (reply.usage) state.usage = reply.usage;
      this.record(this.finish());
      const same = reply.usage && text !== undefined ? restamped(text, reply, id, request.model) : null;
      if (same !== null) return { status: 200, headers: JSON_HEADERS, text: same };
      return { status: 200, headers: {}, json: { ...reply, id, model: request.model, usage: usage() } };
    },
    /**
     * A chunk as the server wrote it, as the text of its event, with this completion's id and the
     * client's model name (the first chunk with the assistant's role); usage the client did not ask for
     * is left out (a chunk that carried only that: null). Passed on as the server wrote it but for id
     * and model where it can be (wire-text.ts), else encoded anew.
     */
    chunk({ value: chunk, text }: Wire): string | null {
      const first = state.chunks++ === 0;
      state.created ||= typeof chunk.created === 'number' ? chunk.created : Math.floor(Date.now() / 1000);
      for (const choice of chunk.choices ?? []) absorb(choice, choice.delta);
      if (chunk.usage) state.usage = chunk.usage;
      const dropUsage = !!chunk.usage && !wantsUsage;
      if (dropUsage && !chunk.choices?.length) return null;
      const lead = chunk.choices?.[0];
      const addRole = first && !!lead?.delta && lead.delta.role === undefined;
      if (!dropUsage && !addRole && text !== undefined) {
        const same = restamped(text, chunk, id, request.model);
        if (same !== null) return same;
      }
      const out: WireReply = { ...chunk, id, model: request.model };
      if (dropUsage) delete out.usage;
      if (addRole) out.choices = [{ ...lead, delta: { role: 'assistant', ...lead!.delta } }, ...out.choices!.slice(1)];
      return JSON.stringify(out);
    },
    /** The finish chunk, for a server that ended its stream without one. */
    finishChunk: () => chunkOf([{ index: 0, delta: {}, finish_reason: 'stop' }]),
    /** The usage chunk (no choices), for a client that asked for usage when the server sent none. */
    usageChunk: () => chunkOf([], { usage: usage() }),
  };
}

/** An event of the stream: `data: ` and the text of a chunk (or `[DONE]`). */
const sse = (text: string) => `data: ${text}\n\n`;

/**
 * The stream of a completion: the server's chunks as it wrote them (see `chunk`), a finish chunk if it
 * sent none, the usage chunk when the client asked and the server sent none, `[DONE]`; an error after
 * the first byte as an error event and `[DONE]`. Recorded once, with how it ended.
 */
function eventStream(
  completion: Completion,
  source: { first: IteratorResult<Wire>; chunks: AsyncGenerator<Wire>; abort: AbortController; detach: () => void },
): ReplyStream {
  const { first, chunks, abort, detach } = source;
  const run = async (send: (chunk: string) => Promise<void> | void) => {
    let outcome = 'stop';
    streamOpened();
    try {
      for (let r = first; !r.done; r = await chunks.next()) {
        const out = completion.chunk(r.value);
        if (out) await send(sse(out));
      }
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      if (!completion.finished()) await send(sse(completion.finishChunk()));
      outcome = completion.finish();
      if (completion.request.stream_options?.include_usage && !completion.hasUsage()) await send(sse(completion.usageChunk()));
      await send(sse('[DONE]'));
    } catch (e) {
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = 'error';
      await sendError(send, e);
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

/** An error after the first byte: an error event in the chat group's shape, then `[DONE]`. */
async function sendError(send: (chunk: string) => Promise<void> | void, e: unknown) {
  const err = e instanceof ApiError ? e : internalChatError();
  if (!(e instanceof ApiError)) log.error('chat stream failed', { error: (e as Error)?.message });
  try {
    await send(sse(JSON.stringify(chatErrorBody(err))));
    await send(sse('[DONE]'));
  } catch {
    // the client is gone
  }
}
