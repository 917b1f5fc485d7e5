import { ChatError, invalidRequest, modelNotFound, rateLimited, upstreamFailed, upstreamUnreachable } from '@/lib/errors/chat';
import type { FinishReason, ModelInfo, Usage } from '../schema';
import type { ChatEngine, EngineEvent, EngineRequest } from './types';

/*
 * Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, OpenAI) at TRIAD_UPSTREAM_URL.
 * Its models are discovered from GET /models. Replies are always requested as a stream (with
 * usage), passed on chunk by chunk; a timeout applies until the first byte and between chunks.
 */
export type UpstreamOptions = { baseUrl: string; apiKey?: string; timeoutMs: number };

const MODELS_TTL_MS = 30_000;

export function upstreamEngine(opts: UpstreamOptions): ChatEngine {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const headers = { 'content-type': 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) };
  let cache: { at: number; models: ModelInfo[] } | undefined;

  async function call(path: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(base + path, { ...init, headers, signal });
    } catch (e) {
      if (signal.aborted && (signal.reason as Error)?.name !== 'TimeoutError') throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw upstreamUnreachable(cause?.code ?? cause?.message ?? (e as Error).message);
    }
  }

  return {
    async listModels() {
      if (cache && Date.now() - cache.at < MODELS_TTL_MS) return cache.models;
      const res = await call('/models', { method: 'GET' }, AbortSignal.timeout(Math.min(opts.timeoutMs, 5000)));
      if (!res.ok) throw upstreamFailed(res.status, await errorText(res));
      const body = (await res.json().catch(() => null)) as { data?: { id?: unknown; created?: unknown; owned_by?: unknown }[] } | null;
      const models = (body?.data ?? [])
        .filter((m) => typeof m.id === 'string')
        .map((m) => ({ id: m.id as string, object: 'model' as const, created: typeof m.created === 'number' ? m.created : 0, owned_by: typeof m.owned_by === 'string' ? m.owned_by : 'upstream' }));
      cache = { at: Date.now(), models };
      return models;
    },

    async *generate(req: EngineRequest): AsyncGenerator<EngineEvent> {
      const idle = new AbortController();
      let timer = setTimeout(() => idle.abort(new DOMException('timeout', 'TimeoutError')), opts.timeoutMs);
      const signal = AbortSignal.any([req.signal, idle.signal]);
      const { signal: _omit, ...params } = req;
      void _omit;
      try {
        const res = await call(
          '/chat/completions',
          { method: 'POST', body: JSON.stringify({ ...params, stream: true, stream_options: { include_usage: true } }) },
          signal,
        );
        if (!res.ok) throw await mapStatus(res, req.model);
        if (!res.body) throw upstreamFailed(res.status, 'empty body');
        let finished = false;
        for await (const data of sseData(res.body, signal)) {
          clearTimeout(timer);
          timer = setTimeout(() => idle.abort(new DOMException('timeout', 'TimeoutError')), opts.timeoutMs);
          if (data === '[DONE]') {
            if (!finished) yield { type: 'finish', reason: 'stop' };
            return;
          }
          let chunk: { choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[]; usage?: Usage | null; error?: { message?: string } };
          try {
            chunk = JSON.parse(data);
          } catch {
            throw upstreamFailed(200, 'the stream carried a line that is not JSON');
          }
          if (chunk.error) throw upstreamFailed(200, chunk.error.message ?? 'error in stream');
          const choice = chunk.choices?.[0];
          if (choice?.delta?.content) yield { type: 'delta', content: choice.delta.content };
          if (choice?.finish_reason && !finished) {
            finished = true;
            yield { type: 'finish', reason: choice.finish_reason === 'length' ? 'length' : ('stop' as FinishReason) };
          }
          if (chunk.usage) yield { type: 'usage', usage: chunk.usage };
        }
        if (req.signal.aborted) return;
        if (idle.signal.aborted) throw upstreamFailed(504, `no data for ${opts.timeoutMs} ms`);
        throw upstreamFailed(200, 'the stream ended before [DONE]');
      } catch (e) {
        if (e instanceof ChatError || req.signal.aborted) throw e;
        if (idle.signal.aborted) throw upstreamFailed(504, `no data for ${opts.timeoutMs} ms`);
        throw upstreamUnreachable((e as Error).message);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

async function errorText(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string };
    return (typeof body.error === 'string' ? body.error : body.error?.message) ?? text.slice(0, 300);
  } catch {
    return text.slice(0, 300) || res.statusText;
  }
}

/** An upstream refusal, in our own terms: its 400/404/429 are the caller's business, the rest is ours (502). */
async function mapStatus(res: Response, model: string): Promise<ChatError> {
  const message = await errorText(res);
  if (res.status === 400 || res.status === 422) return invalidRequest(`The model server refused the request: ${message}`);
  if (res.status === 404) return modelNotFound(model);
  if (res.status === 429) {
    const retry = Number(res.headers.get('retry-after')) || 1;
    return rateLimited(retry, { 'Retry-After': String(retry) });
  }
  return upstreamFailed(res.status, message);
}

/** The `data:` payloads of a Server-Sent Events body. */
async function* sseData(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const onAbort = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', onAbort, { once: true });
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('data:')) yield line.slice(5).trimStart();
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}
