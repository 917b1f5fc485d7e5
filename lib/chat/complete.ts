import { randomBytes } from 'node:crypto';
import type { Db } from '@/lib/db/client';
import { ChatError, chatErrorBody, internalChatError } from '@/lib/errors/chat';
import type { Reply } from '@/lib/core/reply';
import { log } from '@/lib/log';
import { engineFor } from './engines';
import type { EngineEvent } from './engines/types';
import { type ChatCompletion, type ChatCompletionChunk, type ChatRequest, type FinishReason, plainMessages, type Usage } from './schema';
import { countPromptTokens, countTokens } from './tokens';
import { recordUsage } from './usage';
import { streamClosed, streamOpened } from '@/lib/metrics.mjs';

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
  headers: Record<string, string>;
};

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

export async function createChatCompletion(call: ChatCall): Promise<Reply> {
  const { request } = call;
  const engine = await engineFor(request.model);
  const messages = plainMessages(request);
  const engineRequest = {
    model: request.model,
    messages,
    temperature: request.temperature,
    top_p: request.top_p,
    max_tokens: request.max_tokens,
    stop: typeof request.stop === 'string' ? [request.stop] : request.stop,
    seed: request.seed,
    signal: call.signal,
  };
  const id = `chatcmpl-${randomBytes(12).toString('base64url')}`;
  const created = Math.floor(Date.now() / 1000);
  const state = { content: '', finish: null as FinishReason | null, usage: null as Usage | null };
  const absorb = (e: EngineEvent) => {
    if (e.type === 'delta') state.content += e.content;
    else if (e.type === 'finish') state.finish ??= e.reason;
    else state.usage = e.usage;
  };
  const usage = (): Usage => {
    if (state.usage) return state.usage;
    const prompt = countPromptTokens(messages);
    const completion = countTokens(state.content);
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  };
  const record = (outcome: string) => {
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
  };

  const reply = (): ChatCompletion => ({
    id,
    object: 'chat.completion',
    created,
    model: request.model,
    choices: [{ index: 0, message: { role: 'assistant', content: state.content }, finish_reason: state.finish ?? 'stop' }],
    usage: usage(),
  });

  // Not streaming, and the engine can answer in one piece: no events at all (the client's going away
  // aborts the engine through the request's own signal).
  if (!request.stream && engine.complete) {
    const r = await engine.complete(engineRequest);
    Object.assign(state, { content: r.content, finish: r.finish, usage: r.usage });
    const body = reply();
    record(body.choices[0]!.finish_reason);
    return { status: 200, headers: call.headers, json: body };
  }

  // Events: the engine stops when the client goes away, or when the reply stream is cancelled.
  const abort = new AbortController();
  const onClientGone = () => abort.abort(call.signal.reason);
  call.signal.addEventListener('abort', onClientGone, { once: true });
  const events = engine.generate({ ...engineRequest, signal: abort.signal });
  // The first event decides the status: an engine that fails at once gets a proper HTTP error.
  let first: IteratorResult<EngineEvent>;
  try {
    first = await events.next();
  } catch (e) {
    call.signal.removeEventListener('abort', onClientGone);
    throw e;
  }

  if (!request.stream) {
    try {
      for (let r = first; !r.done; r = await events.next()) absorb(r.value);
    } finally {
      call.signal.removeEventListener('abort', onClientGone);
    }
    const body = reply();
    record(body.choices[0]!.finish_reason);
    return { status: 200, headers: call.headers, json: body };
  }

  const chunk = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason | null = null): ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: request.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const sse = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

  const run = async (send: (chunk: string) => Promise<void> | void) => {
    let outcome = 'stop';
    streamOpened();
    try {
      await send(sse(chunk({ role: 'assistant', content: '' })));
      for (let r = first; !r.done; r = await events.next()) {
        absorb(r.value);
        if (r.value.type === 'delta') await send(sse(chunk({ content: r.value.content })));
      }
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = state.finish ?? 'stop';
      await send(sse(chunk({}, state.finish ?? 'stop')));
      if (request.stream_options?.include_usage)
        await send(sse({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage: usage() }));
      await send(sse('[DONE]'));
    } catch (e) {
      if (abort.signal.aborted) {
        outcome = 'aborted';
        return;
      }
      outcome = 'error';
      const err = e instanceof ChatError ? e : internalChatError();
      if (!(e instanceof ChatError)) log.error('chat stream failed', { error: (e as Error)?.message });
      try {
        await send(sse(chatErrorBody(err)));
        await send(sse('[DONE]'));
      } catch {
        // the client is gone
      }
    } finally {
      streamClosed();
      call.signal.removeEventListener('abort', onClientGone);
      record(outcome);
    }
  };
  const cancel = (reason?: unknown) => {
    abort.abort(reason);
    void events.return(undefined);
  };
  return { status: 200, headers: { ...SSE_HEADERS, ...call.headers }, stream: { run, cancel } };
}
