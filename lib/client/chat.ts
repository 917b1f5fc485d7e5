import type { ChatCompletionChunk, ChatRequestInput, ModelInfo, Usage } from '@/lib/chat/schema';
import { ApiError, csrfHeaders, request } from './api';

/** The models served (with the console session: the organization's playground key). */
export const listModels = () => request<{ data: ModelInfo[] }>('/api/v1/models').then((r) => r.data);

/** What the playground sends: a part of the request schema the handler parses with. */
export type ChatBody = Pick<
  ChatRequestInput,
  | 'model'
  | 'messages'
  | 'temperature'
  | 'max_tokens'
  | 'top_p'
  | 'stop'
  | 'seed'
  | 'frequency_penalty'
  | 'presence_penalty'
  | 'tools'
  | 'response_format'
  | 'provider'
  | 'models'
>;

/** A tool call of a reply, assembled from its streamed fragments. */
export type ToolCall = { id: string; name: string; arguments: string };

export type StreamResult = {
  content: string;
  toolCalls: ToolCall[];
  finish: string | null;
  usage: Usage | null;
  ttftMs: number | null;
  totalMs: number;
  aborted: boolean;
  /** Who served it (X-Triad-Provider): a provider's name, or triad-guide. */
  provider: string | null;
};

/** An API error with the seconds to wait, when the server said (429). */
export class ChatApiError extends ApiError {
  constructor(
    status: number,
    message: string,
    readonly code?: string,
    readonly retryAfterS?: number,
  ) {
    super(status, message);
  }
}

/**
 * Streams a chat completion from Triad's public endpoint, calling `onDelta` as text and tool calls arrive.
 * Resolves with what arrived (also when `signal` stops it); rejects with a ChatApiError.
 */
export async function streamChat(
  body: ChatBody,
  { signal, onDelta }: { signal: AbortSignal; onDelta: (text: string, toolCalls: ToolCall[]) => void },
): Promise<StreamResult> {
  const started = performance.now();
  const result: StreamResult = {
    content: '',
    toolCalls: [],
    finish: null,
    usage: null,
    ttftMs: null,
    totalMs: 0,
    aborted: false,
    provider: null,
  };
  let res: Response;
  try {
    res = await fetch('/api/v1/chat/completions', {
      method: 'POST',
      // The console session's cookie goes along; a call that changes something carries its CSRF token.
      headers: { ...csrfHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
      signal,
    });
  } catch (e) {
    if (signal.aborted) return { ...result, aborted: true, totalMs: performance.now() - started };
    throw new ChatApiError(0, `Triad could not be reached (${(e as Error).message})`);
  }
  if (!res.ok) {
    const err = ((await res.json().catch(() => null)) as { error?: { message?: string; code?: string } } | null)?.error;
    throw new ChatApiError(
      res.status,
      err?.message ?? `HTTP ${res.status}`,
      err?.code,
      Number(res.headers.get('retry-after')) || undefined,
    );
  }
  result.provider = res.headers.get('x-triad-provider');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (!block.startsWith('data: ')) continue;
        const data = block.slice(6);
        if (data === '[DONE]') continue;
        const event = JSON.parse(data) as ChatCompletionChunk & { error?: { message: string; code: string } };
        if (event.error) throw new ChatApiError(502, event.error.message, event.error.code);
        const choice = event.choices[0];
        if (choice?.delta.content) {
          result.ttftMs ??= performance.now() - started;
          result.content += choice.delta.content;
          onDelta(result.content, result.toolCalls);
        }
        // Tool calls arrive as fragments by index: the id and name first, then pieces of the arguments.
        for (const part of choice?.delta.tool_calls ?? []) {
          result.ttftMs ??= performance.now() - started;
          const call = (result.toolCalls[part.index] ??= { id: '', name: '', arguments: '' });
          call.id ||= part.id ?? '';
          call.name += part.function?.name ?? '';
          call.arguments += part.function?.arguments ?? '';
          onDelta(result.content, result.toolCalls);
        }
        if (choice?.finish_reason) result.finish = choice.finish_reason;
        if (event.usage) result.usage = event.usage;
      }
    }
  } catch (e) {
    if (!signal.aborted) throw e;
    result.aborted = true;
  }
  result.totalMs = performance.now() - started;
  return result;
}

/** A curl command for the conversation; the key comes from $TRIAD_API_KEY, never pasted in. */
export function curlCommand(origin: string, body: ChatBody): string {
  const json = JSON.stringify({ ...body, stream: true }, null, 2).replaceAll("'", "'\\''");
  return `curl -N ${origin}/api/v1/chat/completions \\\n  -H "Authorization: Bearer $TRIAD_API_KEY" \\\n  -H "Content-Type: application/json" \\\n  -d '${json}'`;
}

/** A JSON value as a Python literal (True, False, None), indented like json.dumps(indent=4). */
function pythonLiteral(value: unknown, depth = 1): string {
  const pad = '    '.repeat(depth);
  const end = '    '.repeat(depth - 1);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return value.length ? `[\n${value.map((v) => pad + pythonLiteral(v, depth + 1)).join(',\n')},\n${end}]` : '[]';
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return entries.length
    ? `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${pythonLiteral(v, depth + 1)}`).join(',\n')},\n${end}}`
    : '{}';
}

/** The conversation as a Python program with the openai package, streaming the reply; the key from $TRIAD_API_KEY. */
export function pythonCode(origin: string, body: ChatBody): string {
  const args = Object.entries(body)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `    ${k}=${pythonLiteral(v, 2)},`)
    .join('\n');
  return `import os

from openai import OpenAI

client = OpenAI(base_url="${origin}/api/v1", api_key=os.environ["TRIAD_API_KEY"])

stream = client.chat.completions.create(
${args}
    stream=True,
)
for chunk in stream:
    if chunk.choices and chunk.choices[0].delta.content:
        print(chunk.choices[0].delta.content, end="", flush=True)
print()
`;
}

/** The conversation as a TypeScript program with the openai package, streaming the reply; the key from $TRIAD_API_KEY. */
export function typescriptCode(origin: string, body: ChatBody): string {
  const json = JSON.stringify(body, null, 2).replace(/\n}$/, ',\n  stream: true,\n}');
  return `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${origin}/api/v1', apiKey: process.env.TRIAD_API_KEY });

const stream = await client.chat.completions.create(${json});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
process.stdout.write('\\n');
`;
}
