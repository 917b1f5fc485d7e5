import { randomId } from '@/lib/core/random-id';
import { costNumber } from '@/lib/providers/prices';
import { type ChatRequestInput, joinBlocks, routingOf } from '@/lib/chat/schema';
import { invalidMessagesRequest } from '@/lib/errors/anthropic';
import type { TokenUsage, WireChoice, WireMessage } from '@/lib/providers/client';
import type { Block, MessagesRequest } from './schema';

/*
 * Anthropic Messages translated onto Chat Completions (design §16): `system` → a system message; text
 * and image blocks → parts; an assistant's `tool_use` blocks → `tool_calls` (input as JSON arguments);
 * a user's `tool_result` blocks → `tool` messages; custom tools (`input_schema`) → function tools;
 * `tool_choice` auto/any/tool/none → auto/required/the function/none; `stop_sequences` → `stop`;
 * and back: `stop_reason` from `finish_reason`, usage as input/output tokens. Server tools a Chat
 * provider cannot run are left out and named (Triad-Omitted-Tools); fields it cannot take
 * (cache_control, thinking, metadata…) are left out, never refused.
 * Deferred tools (`defer_loading: true`) are what Anthropic keeps out of the model's view until a tool
 * search names them: left out too (named `deferred`), except those a `tool_reference` block of the
 * conversation has named (a client's own tool search, as Claude Code's ToolSearch answers, or a server's).
 */

type ChatMessageInput = ChatRequestInput['messages'][number];
type UserPart = Exclude<Extract<ChatMessageInput, { role: 'user' }>['content'], string>[number];

type TextLike = { type: string; text?: unknown; tool_name?: unknown };
/**
 * The text of a block list: its text blocks, a line between them. In a tool result (`references`), a
 * `tool_reference` block reads as the tool's name (a tool search's answer); other blocks are not text.
 */
const textOf = (blocks: string | TextLike[] | undefined, references = false) =>
  typeof blocks === 'string'
    ? blocks
    : joinBlocks(
        (blocks ?? []).map((b) =>
          b.type === 'text' && typeof b.text === 'string'
            ? b.text
            : references && b.type === 'tool_reference' && typeof b.tool_name === 'string'
              ? b.tool_name
              : '',
        ),
      );

/** The tools `tool_reference` blocks name anywhere in the conversation: in tool results, or in a server tool search's results. */
function referencedTools(messages: MessagesRequest['messages']): Set<string> {
  const names = new Set<string>();
  const take = (refs: unknown) => {
    if (!Array.isArray(refs)) return;
    for (const r of refs as TextLike[]) if (r?.type === 'tool_reference' && typeof r.tool_name === 'string') names.add(r.tool_name);
  };
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content as { type: string; content?: unknown }[]) {
      if (b.type === 'tool_result') take(b.content);
      else if (b.type === 'tool_search_tool_result') take((b.content as { tool_references?: unknown } | undefined)?.tool_references);
    }
  }
  return names;
}

function imagePart(b: Extract<Block, { type: 'image' }>): UserPart {
  const s = b.source as { type: string; media_type?: string; data?: string; url?: string };
  const url = s.type === 'base64' ? `data:${s.media_type};base64,${s.data}` : s.url!;
  return { type: 'image_url', image_url: { url } };
}

export function messagesOf(req: Pick<MessagesRequest, 'system' | 'messages'>): ChatMessageInput[] {
  const out: ChatMessageInput[] = [];
  const system = textOf(req.system);
  if (system) out.push({ role: 'system', content: system });
  for (const m of req.messages) {
    if (typeof m.content === 'string') {
      out.push({ role: m.role, content: m.content });
      continue;
    }
    const blocks = m.content as Block[];
    if (m.role === 'system') {
      const text = textOf(blocks as { type: string; text?: unknown }[]);
      if (text) out.push({ role: 'system', content: text });
      continue;
    }
    if (m.role === 'assistant') {
      const calls = blocks
        .filter((b): b is Extract<Block, { type: 'tool_use' }> => b.type === 'tool_use')
        .map((b) => ({ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
      const content = textOf(blocks as { type: string; text?: unknown }[]);
      if (!content && !calls.length) continue; // only thinking: nothing a Chat provider takes
      out.push({ role: 'assistant', content: content || null, ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    // A user turn: its tool results first (each a tool message), then what the user said.
    const parts: UserPart[] = [];
    for (const b of blocks) {
      if (b.type === 'tool_result') {
        const r = b as Extract<Block, { type: 'tool_result' }>;
        const result = textOf(r.content as TextLike[] | string | undefined, true) || (r.is_error ? 'error' : '(no output)');
        out.push({ role: 'tool', tool_call_id: r.tool_use_id, content: r.is_error ? `Error: ${result}` : result });
      } else if (b.type === 'text') parts.push({ type: 'text', text: (b as { text: string }).text });
      else if (b.type === 'image') parts.push(imagePart(b as Extract<Block, { type: 'image' }>));
    }
    if (parts.length)
      out.push({
        role: 'user',
        content: parts.every((p) => p.type === 'text') ? joinBlocks(parts.map((p) => (p as { text: string }).text)) : parts,
      });
  }
  return out;
}

/** Custom tools as function tools; server tools left out (their types named), deferred ones unless `referenced`. */
function toolsOf(tools: MessagesRequest['tools'], referenced: ReadonlySet<string>) {
  const out: NonNullable<ChatRequestInput['tools']> = [];
  const omitted: string[] = [];
  for (const t of tools ?? []) {
    const custom = t as {
      type?: string;
      name: string;
      description?: string;
      input_schema?: Record<string, unknown>;
      defer_loading?: unknown;
    };
    if ((custom.type === undefined || custom.type === 'custom') && custom.input_schema) {
      if (custom.defer_loading === true && !referenced.has(custom.name)) {
        omitted.push('deferred');
        continue;
      }
      out.push({
        type: 'function',
        function: {
          name: custom.name,
          ...(custom.description ? { description: custom.description } : {}),
          parameters: custom.input_schema,
        },
      });
    } else omitted.push(custom.type ?? 'unknown');
  }
  return { tools: out, omitted: [...new Set(omitted)] };
}

export function chatRequestOf(req: MessagesRequest): { chat: ChatRequestInput; omitted: string[] } {
  const { tools, omitted } = toolsOf(req.tools, referencedTools(req.messages));
  const messages = messagesOf(req);
  if (!messages.length) throw invalidMessagesRequest('messages: at least one message with content is required');
  const choice = req.tool_choice;
  let toolChoice: ChatRequestInput['tool_choice'];
  if (choice?.type === 'tool' && !tools.some((t) => t.function.name === choice.name))
    throw invalidMessagesRequest(
      `tool_choice: the tool ${choice.name ?? '(unnamed)'} is not among the tools a provider can run here (left out: ${omitted.join(', ') || 'none'})`,
    );
  if (choice && tools.length) {
    if (choice.type === 'tool') {
      if (!tools.some((t) => t.function.name === choice.name))
        throw invalidMessagesRequest(
          `tool_choice: the tool ${choice.name ?? '(unnamed)'} is not among the tools a provider can run here (left out: ${omitted.join(', ') || 'none'})`,
        );
      toolChoice = { type: 'function', function: { name: choice.name! } };
    } else toolChoice = choice.type === 'any' ? 'required' : choice.type;
  }
  const stop = (req.stop_sequences ?? []).filter(Boolean).slice(0, 4);
  const chat: ChatRequestInput = {
    model: req.model,
    messages,
    stream: !!req.stream,
    ...(req.stream ? { stream_options: { include_usage: true } } : {}),
    max_tokens: req.max_tokens,
    ...(tools.length ? { tools } : {}),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
    ...(tools.length && choice?.disable_parallel_tool_use ? { parallel_tool_calls: false } : {}),
    ...(stop.length ? { stop } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.top_p !== undefined ? { top_p: req.top_p } : {}),
    ...(req.metadata?.user_id ? { user: req.metadata.user_id.slice(0, 256) } : {}),
    ...routingOf(req),
  };
  return { chat, omitted };
}

export const newMessageId = () => `msg_${randomId(24)}`;
export const newToolUseId = () => `toolu_${randomId(24)}`;

/**
 * The stop sequence a reply ended at: one of those the client asked for, as the server names it in the
 * choice that finished (vLLM's `stop_reason`, SGLang's `matched_stop`). Servers that do not say (Ollama,
 * llama.cpp) end at a stop sequence with a plain `stop`: end_turn, and no sequence.
 */
export function stopSequenceOf(choice: WireChoice | undefined, asked: readonly string[] | undefined): string | null {
  const named = choice?.stop_reason ?? choice?.matched_stop;
  return typeof named === 'string' && asked?.includes(named) ? named : null;
}

/** A chat finish reason as Anthropic's stop_reason. */
export function stopReasonOf(finish: string): string {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** A tool call's JSON arguments as a tool_use block's input (an object; arguments that are not one are kept under `arguments`). */
export function inputOf(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { arguments: v };
  } catch {
    return { arguments: args };
  }
}

/** The content blocks of a whole chat reply's message. */
export function contentOf(message: WireMessage | undefined, thinking: boolean) {
  const out: Record<string, unknown>[] = [];
  if (!message) return out;
  if (thinking && message.reasoning_content) out.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  if (message.content) out.push({ type: 'text', text: message.content });
  for (const c of message.tool_calls ?? [])
    out.push({ type: 'tool_use', id: c.id ?? newToolUseId(), name: c.function?.name ?? '', input: inputOf(c.function?.arguments ?? '') });
  return out;
}

/** Chat usage as the Messages API reports it, with what it cost (USD, design §17). */
export function usageOf(u: TokenUsage, cost: string) {
  const cached = (u as { prompt_tokens_details?: { cached_tokens?: number } | null }).prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: u.prompt_tokens - cached,
    output_tokens: u.completion_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    cost: costNumber(cost),
  };
}
