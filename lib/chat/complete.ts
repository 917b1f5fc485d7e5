import { randomBytes } from 'node:crypto';
import type { Db } from '@/lib/db/client';
import { ApiError } from '@/lib/core/errors';
import { chatErrorBody, internalChatError } from '@/lib/errors/chat';
import type { Reply, ReplyStream } from '@/lib/core/reply';
import { log } from '@/lib/log';
import { engineFor } from './engines';
import type { ChatEngine, EngineEvent } from './engines/types';
import { takeCompletionSlot } from './concurrency';
import { type ChatCompletion, type ChatCompletionChunk, type ChatRequest, type FinishReason, plainMessages, type Usage } from './schema';
import { countPromptTokens, countTokens } from './tokens';
import { recordUsage } from './usage';
import { streamClosed, streamOpened } from '@/lib/metrics';

/*
 * One chat completion: pick the engine, run it, and answer as interface 2.2 (one JSON object) or
 * interface 2.3 / design §4 (Server-Sent Events: a role chunk, content chunks, a finish chunk, an
 * optional usage chunk, `data: [DONE]`). Errors before the first byte get their HTTP status; an
 * error after it ends the stream with `data: {"error":…}` and `data: [DONE]`. A client that goes
 * away aborts the engine (and so the upstream request). Usage is recorded per API key and model.
 */
export type ChatCall = {
  db: Db;
  request: ChatRequest;
  apiKeyId: string;
  platform: string | null;
  signal: AbortSignal;
};

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

export async function createChatCompletion(call: ChatCall): Promise<Reply> {
  const engine = await engineFor(call.request.model);
  const release = takeCompletionSlot(call.apiKeyId);
  try {
    const reply = await answer(call, engine, release);
    if (!('stream' in reply)) release();
    return reply;
  } catch (e) {
    release();
    throw e;
  }
}

/** The completion as a whole reply or a stream; a stream gives its place back (`release`) when it ends. */
async function answer(call: ChatCall, engine: ChatEngine, release: () => void): Promise<Reply> {
  const completion = completionOf(call);

  // Not streaming, and the engine can answer in one piece: no events at all (the client's going away
  // aborts the engine through the request's own signal).
  if (!call.request.stream && engine.complete) {
    completion.take(await engine.complete(completion.engineRequest(call.signal)));
    return completion.whole();
  }

  // Events: the engine stops when the client goes away, or when the reply stream is cancelled.
  const abort = new AbortController();
  const onClientGone = () => abort.abort(call.signal.reason);
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const detach = () => call.signal.removeEventListener('abort', onClientGone);
  const events = engine.generate(completion.engineRequest(abort.signal));
  // The first event decides the status: an engine that fails at once gets a proper HTTP error.
  let first: IteratorResult<EngineEvent>;
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
    }
    return completion.whole();
  }
  return {
    status: 200,
    headers: SSE_HEADERS,
    stream: eventStream(completion, { first, events, abort, detach: () => (detach(), release()) }),
  };
}

type Completion = ReturnType<typeof completionOf>;

/** One completion's id, time and content so far, and what becomes of them: the whole reply, chunks, usage. */
function completionOf(call: ChatCall) {
  const { request } = call;
  const messages = plainMessages(request);
  const id = `chatcmpl-${randomBytes(12).toString('base64url')}`;
  const created = Math.floor(Date.now() / 1000);
  const state = { content: '', finish: null as FinishReason | null, usage: null as Usage | null };

  /** Usage as the engine reported it, else counted with the tokenizer. */
  const usage = (): Usage => {
    if (state.usage) return state.usage;
    const prompt = countPromptTokens(messages);
    const completion = countTokens(state.content);
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };
  return {
    request,
    engineRequest: (signal: AbortSignal) => ({
      model: request.model,
      messages,
      temperature: request.temperature,
      top_p: request.top_p,
      max_tokens: request.max_tokens,
      stop: typeof request.stop === 'string' ? [request.stop] : request.stop,
      seed: request.seed,
      signal,
    }),
    absorb(e: EngineEvent) {
      if (e.type === 'delta') state.content += e.content;
      else if (e.type === 'finish') state.finish ??= e.reason;
      else state.usage = e.usage;
    },
    /** An engine's answer in one piece. */
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
  engine: { first: IteratorResult<EngineEvent>; events: AsyncGenerator<EngineEvent>; abort: AbortController; detach: () => void },
): ReplyStream {
  const { first, events, abort, detach } = engine;
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
