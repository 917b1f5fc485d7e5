import { randomBytes } from 'node:crypto';
import type { Db } from '@/lib/db/client';
import { ApiError } from '@/lib/core/errors';
import { chatErrorBody, internalChatError } from '@/lib/errors/chat';
import type { Reply, ReplyStream } from '@/lib/core/reply';
import { log } from '@/lib/log';
import type { ModelEvent } from '@/lib/providers/client';
import { recordEarnings } from '@/lib/providers/earnings';
import { routeCompletion, type Target } from '@/lib/providers/router';
import { GUIDE_MODEL } from './guide';
import { guideOf, isGuide } from './models';
import { takeCompletionSlot } from './concurrency';
import { type ChatCompletion, type ChatCompletionChunk, type ChatRequest, type FinishReason, plainMessages, type Usage } from './schema';
import { countPromptTokens, countTokens } from './tokens';
import { recordLatency } from './latency';
import { recordUsage } from './usage';
import { streamClosed, streamOpened } from '@/lib/metrics';

/*
 * One chat completion: pick the model server (triad-guide or a provider's), run it, and answer as interface 2.2 (one JSON object) or
 * interface 2.3 / design §4 (Server-Sent Events: a role chunk, content chunks, a finish chunk, an
 * optional usage chunk, `data: [DONE]`). Errors before the first byte get their HTTP status; an
 * error after it ends the stream with `data: {"error":…}` and `data: [DONE]`. A client that goes
 * away aborts the model server's request. Usage is recorded per API key and model.
 */
export type ChatCall = {
  db: Db;
  request: ChatRequest;
  apiKeyId: string;
  platform: string | null;
  signal: AbortSignal;
  /** performance.now() when the call began (its latency is measured from there). */
  startedAt?: number;
};

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
    const { reply, provider } = isGuide(call.request.model)
      ? { reply: await answer(call, { client: guideOf(), model: GUIDE_MODEL, provider: null }, () => {}), provider: GUIDE_MODEL }
      : await routeCompletion(call.db, call.request.model, call.signal, (target, done) => answer(call, target, done));
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
 * it fails before its first event (the router then tries another provider); `done` is called
 * when a reply it returns is over (at once for a whole reply, at its end for a stream).
 */
async function answer(
  call: ChatCall,
  target: Pick<Target, 'client' | 'model'> & { provider: Target['provider'] | null },
  done: () => void,
): Promise<Reply> {
  const { client } = target;
  const completion = completionOf(call, target);

  // Not streaming, and the model server can answer in one piece: no events at all (the client's going away
  // aborts it through the request's own signal).
  if (!call.request.stream && client.complete) {
    completion.take(await client.complete(completion.modelRequest(call.signal)));
    done();
    return completion.whole();
  }

  // Events: the model server stops when the client goes away, or when the reply stream is cancelled.
  const abort = new AbortController();
  const onClientGone = () => abort.abort(call.signal.reason);
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const detach = () => call.signal.removeEventListener('abort', onClientGone);
  const events = client.generate(completion.modelRequest(abort.signal));
  // The first event decides the status: a model server that fails at once gets a proper HTTP error.
  let first: IteratorResult<ModelEvent>;
  try {
    first = await events.next();
  } catch (e) {
    detach();
    throw e;
  }

  if (!call.request.stream) {
    try {
      for (let r = first; !r.done; r = await events.next()) completion.absorb(r.value);
    } finally {
      detach();
      done();
    }
    return completion.whole();
  }
  return {
    status: 200,
    headers: SSE_HEADERS,
    stream: eventStream(completion, { first, events, abort, detach: () => (detach(), done()) }),
  };
}

type Completion = ReturnType<typeof completionOf>;

/** One completion's id, time and content so far, and what becomes of them: the whole reply, chunks, usage. */
function completionOf(call: ChatCall, target: { model: string; provider: Target['provider'] | null }) {
  const { request } = call;
  const messages = plainMessages(request);
  const id = `chatcmpl-${randomBytes(12).toString('base64url')}`;
  const created = Math.floor(Date.now() / 1000);
  const state = { content: '', finish: null as FinishReason | null, usage: null as Usage | null, firstContentAt: null as number | null };

  /** Usage as the model server reported it, else counted with the tokenizer. */
  const usage = (): Usage => {
    if (state.usage) return state.usage;
    const prompt = countPromptTokens(messages);
    const completion = countTokens(state.content);
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };
  return {
    request,
    modelRequest: (signal: AbortSignal) => ({
      model: target.model,
      messages,
      temperature: request.temperature,
      top_p: request.top_p,
      max_tokens: request.max_tokens,
      stop: typeof request.stop === 'string' ? [request.stop] : request.stop,
      seed: request.seed,
      signal,
    }),
    absorb(e: ModelEvent) {
      if (e.type === 'delta') {
        state.content += e.content;
        if (e.content) state.firstContentAt ??= performance.now();
      } else if (e.type === 'finish') state.finish ??= e.reason;
      else state.usage = e.usage;
    },
    /** A model server's answer in one piece. */
    take(answer: { content: string; finish: FinishReason; usage: Usage | null }) {
      Object.assign(state, answer);
    },
    get finish(): FinishReason {
      return state.finish ?? 'stop';
    },
    usage,
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
    /** The whole reply (interface 2.2), recorded. */
    whole(): Reply {
      const body: ChatCompletion = {
        id,
        object: 'chat.completion',
        created,
        model: request.model,
        choices: [{ index: 0, message: { role: 'assistant', content: state.content }, finish_reason: state.finish ?? 'stop' }],
        usage: usage(),
      };
      this.record(body.choices[0]!.finish_reason);
      return { status: 200, headers: {}, json: body };
    },
    /** A chunk of the stream (interface 2.3); with `usage`, the usage chunk (no choices). */
    chunk(delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null = null): ChatCompletionChunk {
      return { id, object: 'chat.completion.chunk', created, model: request.model, choices: [{ index: 0, delta, finish_reason: finish }] };
    },
    usageChunk(): ChatCompletionChunk {
      return { id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage: usage() };
    },
  };
}

const sse = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/**
 * The stream of a completion (design §4): a role chunk, content chunks, a finish chunk, the usage
 * chunk when asked for, `[DONE]`; an error after the first byte as an error event and `[DONE]`.
 * Recorded once, with how it ended.
 */
function eventStream(
  completion: Completion,
  source: { first: IteratorResult<ModelEvent>; events: AsyncGenerator<ModelEvent>; abort: AbortController; detach: () => void },
): ReplyStream {
  const { first, events, abort, detach } = source;
  const run = async (send: (chunk: string) => Promise<void> | void) => {
    let outcome = 'stop';
    streamOpened();
    try {
      await send(sse(completion.chunk({ role: 'assistant', content: '' })));
      for (let r = first; !r.done; r = await events.next()) {
        completion.absorb(r.value);
        if (r.value.type === 'delta') await send(sse(completion.chunk({ content: r.value.content })));
      }
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = completion.finish;
      await send(sse(completion.chunk({}, completion.finish)));
      if (completion.request.stream_options?.include_usage) await send(sse(completion.usageChunk()));
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
    void events.return(undefined);
    detach(); // also when the stream never ran (its client went away first)
  };
  return { run, cancel };
}

/** An error after the first byte: an error event in the chat group's shape, then `[DONE]`. */
async function sendError(send: (chunk: string) => Promise<void> | void, e: unknown) {
  const err = e instanceof ApiError ? e : internalChatError();
  if (!(e instanceof ApiError)) log.error('chat stream failed', { error: (e as Error)?.message });
  try {
    await send(sse(chatErrorBody(err)));
    await send(sse('[DONE]'));
  } catch {
    // the client is gone
  }
}
