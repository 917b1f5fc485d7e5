import { randomId } from '@/lib/core/random-id';
import { costNumber } from '@/lib/providers/prices';
import { type ChatRequestInput, FUNCTION_NAME, joinBlocks, routingOf } from '@/lib/chat/schema';
import { invalidRequest, unsupportedParameter } from '@/lib/errors/chat';
import type { TokenUsage, WireMessage } from '@/lib/providers/client';
import {
  type ContentPart,
  type CustomTool,
  type FunctionTool,
  isKnownItem,
  type Item,
  type ResponsesRequest,
  type ToolSearchTool,
} from './schema';

/*
 * The Responses dialect translated onto Chat Completions (design §16): `instructions` and
 * system/developer items → system messages; messages → messages; `function_call` /
 * `function_call_output` items ↔ an assistant's `tool_calls` / `tool` messages; function tools → tools
 * (a namespace's functions flattened, their calls given back with the namespace); `text.format` ↔
 * `response_format`; custom (free-text) tools ↔ functions of one string parameter, `input` (their calls
 * given back as `custom_tool_call` items of that text); `max_output_tokens` → `max_tokens`;
 * `reasoning.effort` → `reasoning_effort`; reasoning text ↔ reasoning items; usage ↔ `input_tokens` / `output_tokens`. A tool search
 * the client runs (Codex's `tool_search`, `execution: "client"`) is a function of its parameters, its calls given back as
 * `tool_search_call` items; the tools a `tool_search_output` item loaded are function tools from then on, and the
 * output reads as their names in a tool message. Hosted tools a Chat provider cannot run are left out and named
 * (Triad-Omitted-Tools); a `tool_choice` that requires one is a 400. Pure functions: the stored history comes in as items.
 */

export const newItemId = (prefix: 'msg' | 'fc' | 'rs' | 'fco' | 'ctc' | 'ctco' | 'tsc' | 'tso' | 'item') => `${prefix}_${randomId(24)}`;

/** How a chat function's name maps back to the client's tool: a namespace's function (flattened), a custom tool, or the tool search. */
export type ToolNames = Map<string, ToolName>;
export type ToolName = { name: string; namespace?: string; custom?: true; search?: true };

/** The chat function a client-run tool search is offered as. */
const SEARCH = 'tool_search';

type ChatMessageInput = ChatRequestInput['messages'][number];

const textOf = (content: string | ContentPart[]) =>
  typeof content === 'string'
    ? content
    : joinBlocks(
        content.map((p) => (p.type === 'input_text' || p.type === 'output_text' ? p.text : p.type === 'refusal' ? p.refusal : '')),
      );

type UserContent = Extract<ChatMessageInput, { role: 'user' }>['content'];
function userContent(content: string | ContentPart[]): UserContent {
  if (typeof content === 'string') return content;
  return content.map((p, i) => {
    switch (p.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text' as const, text: p.text };
      case 'refusal':
        return { type: 'text' as const, text: p.refusal };
      case 'input_image':
        if (!p.image_url)
          throw unsupportedParameter(
            `input.content[${i}].file_id`,
            'Images are given by image_url here (an http(s) or data: URL); file ids are not kept.',
          );
        return { type: 'image_url' as const, image_url: { url: p.image_url, ...(p.detail ? { detail: p.detail } : {}) } };
      case 'input_file':
        if (!p.file_data)
          throw unsupportedParameter(
            `input.content[${i}].file_data`,
            'Files are given inline as file_data here; file ids and URLs are not fetched.',
          );
        return { type: 'file' as const, file: { file_data: p.file_data, ...(p.filename ? { filename: p.filename } : {}) } };
    }
  });
}

/**
 * A name for a namespace's function in the chat request (a chat function name is 1–64 of [a-zA-Z0-9_-]): the two
 * joined by `__`, which a namespace's name may end with already (Codex's MCP servers' `mcp__crm__`).
 */
function flatName(namespace: string, name: string) {
  const prefix = namespace.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `${prefix}${prefix.endsWith('__') ? '' : '__'}${name}`.slice(0, 64);
}

/** The chat name of a call or a tool_choice naming a function (with its namespace, if any). */
function chatName(names: ToolNames, name: string, namespace?: string | null) {
  if (!namespace) return name;
  for (const [flat, n] of names) if (n.namespace === namespace && n.name === name) return flat;
  return flatName(namespace, name);
}

/** A tool call into `out`: calls in a row (and a call right after the assistant's text) are one assistant turn. */
function called(out: ChatMessageInput[], id: string, name: string, args: string) {
  const call = { id, type: 'function' as const, function: { name, arguments: args } };
  const last = out.at(-1);
  if (last?.role === 'assistant')
    (last as { tool_calls?: unknown[] }).tool_calls = [...((last as { tool_calls?: unknown[] }).tool_calls ?? []), call];
  else out.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** A custom tool as a chat function: one string parameter, `input`, described by the tool's format (a grammar's definition with it). */
function customFunction(t: CustomTool) {
  const f = t.format;
  const input =
    f?.type === 'grammar' && f.definition
      ? `The tool's input: free text in this ${f.syntax ?? ''} grammar (not JSON):\n${f.definition}`
      : "The tool's input, as free text.";
  return {
    type: 'function' as const,
    function: {
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: input } },
        required: ['input'],
        additionalProperties: false,
      },
    },
  };
}

/** A client-run tool search as a chat function: its description and parameters as the client wrote them (a query by default). */
function searchFunction(t: ToolSearchTool) {
  const parameters =
    t.parameters && typeof t.parameters === 'object'
      ? (t.parameters as Record<string, unknown>)
      : { type: 'object', properties: { query: { type: 'string', description: 'What the tools sought do.' } }, required: ['query'] };
  const description = t.description || 'Searches the tools not loaded yet and loads those that match, to be called from the next turn on.';
  return { type: 'function' as const, function: { name: SEARCH, description, parameters } };
}

/** A tool search's arguments from its chat call's (an object; arguments that are not one are its query). */
function searchArgumentsOf(args: string): unknown {
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // not JSON: the model wrote the query itself
  }
  return { query: args };
}

/** A custom tool's input from its chat call's arguments (`{"input": …}`; arguments of another shape are the input as they are). */
function customInputOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (parsed && typeof parsed === 'object' && typeof parsed.input === 'string') return parsed.input;
  } catch {
    // not JSON: the model wrote the input itself
  }
  return args;
}

/** Items (the history, then this request's) as chat messages. Reasoning items, and items of kinds Triad does not translate, are left out. */
export function messagesOf(items: Item[], instructions: string | null | undefined, names: ToolNames): ChatMessageInput[] {
  const out: ChatMessageInput[] = [];
  if (instructions) out.push({ role: 'system', content: instructions });
  for (const item of items) {
    if (!isKnownItem(item)) continue;
    switch (item.type) {
      case 'message':
        if (item.role === 'user') out.push({ role: 'user', content: userContent(item.content) });
        else if (item.role === 'assistant') out.push({ role: 'assistant', content: textOf(item.content) });
        else out.push({ role: item.role, content: textOf(item.content) });
        break;
      case 'function_call':
        called(out, item.call_id, chatName(names, item.name, item.namespace), item.arguments);
        break;
      case 'custom_tool_call':
        called(out, item.call_id, item.name, JSON.stringify({ input: item.input }));
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        out.push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output) || '(no output)' });
        break;
      case 'tool_search_call': // (one without a call id, a hosted search's, is left out: its tools are loaded all the same)
        if (item.call_id) called(out, item.call_id, SEARCH, JSON.stringify(item.arguments ?? {}));
        break;
      case 'tool_search_output':
        if (item.call_id) out.push({ role: 'tool', tool_call_id: item.call_id, content: loadedText(item.tools, names) });
        break;
      case 'reasoning':
        break;
    }
  }
  // An assistant turn with only empty text and calls: its content is null, as chat servers expect.
  for (const m of out) if (m.role === 'assistant' && m.content === '' && (m as { tool_calls?: unknown[] }).tool_calls) m.content = null;
  return out;
}

/** A tool search's output as the model reads it: the chat names of the tools it loaded. */
function loadedText(tools: { type: string; name?: unknown }[], names: ToolNames): string {
  const loaded: string[] = [];
  for (const t of tools) {
    if (t.type === 'function' && typeof t.name === 'string') loaded.push(t.name);
    else if (t.type === 'namespace' && typeof t.name === 'string')
      for (const f of (t as { tools?: { type: string; name?: unknown }[] }).tools ?? [])
        if (f.type === 'function' && typeof f.name === 'string') loaded.push(chatName(names, f.name, t.name));
  }
  return loaded.length ? `Tools loaded, to be called from now on: ${loaded.join(', ')}` : 'No tools matched.';
}

type ToolLike = { type: string; name?: unknown; tools?: unknown };

/**
 * The request's tools as chat tools: functions as they are, a namespace's functions flattened, custom tools
 * as functions of their input, a client-run tool search as a function of its query (and then the functions
 * marked `defer_loading` left out, named `deferred`); then the tools the conversation's tool searches loaded
 * (`loaded`: the tool_search_output items' tools). Others are left out (their types named).
 */
function toolsOf(
  tools: ResponsesRequest['tools'],
  loaded: ToolLike[],
): {
  tools: NonNullable<ChatRequestInput['tools']>;
  omitted: string[];
  names: ToolNames;
} {
  const out: NonNullable<ChatRequestInput['tools']> = [];
  const omitted: string[] = [];
  const names: ToolNames = new Map();
  const taken = new Set<string>();
  const push = (tool: NonNullable<ChatRequestInput['tools']>[number], name?: ToolName) => {
    const chat = tool.function.name;
    if (taken.has(chat)) return; // a tool the request gave, or one loaded twice
    taken.add(chat);
    if (name) names.set(chat, name);
    out.push(tool);
  };
  const fn = (t: FunctionTool, name = t.name) => ({
    type: 'function' as const,
    function: {
      name,
      ...(t.description ? { description: t.description } : {}),
      ...(t.parameters ? { parameters: t.parameters } : {}),
      ...(t.strict != null ? { strict: t.strict } : {}),
    },
  });
  // With a tool search the client runs, deferred functions wait until a search loads them (as OpenAI keeps them from the model).
  const clientSearch = (t: ToolLike) => t.type === 'tool_search' && (t as ToolSearchTool).execution === 'client';
  const searching = (tools ?? []).some(clientSearch);
  const deferred = (t: ToolLike, given: boolean) => given && searching && (t as { defer_loading?: unknown }).defer_loading === true;
  // (A name a chat function cannot have: the request's own is its 400, a loaded one is left out.)
  const named = (t: ToolLike, given: boolean): t is ToolLike & { name: string } =>
    typeof t.name === 'string' && (given || FUNCTION_NAME.test(t.name));
  const add = (t: ToolLike, given: boolean) => {
    if (deferred(t, given)) omitted.push('deferred');
    else if (t.type === 'function' && named(t, given)) push(fn(t as FunctionTool));
    else if (t.type === 'custom' && named(t, given)) push(customFunction(t as CustomTool), { name: t.name, custom: true });
    else if (clientSearch(t)) push(searchFunction(t as ToolSearchTool), { name: SEARCH, search: true });
    else if (t.type === 'namespace' && typeof t.name === 'string' && Array.isArray(t.tools)) {
      for (const f of t.tools as ToolLike[]) {
        if (f.type !== 'function' || !named(f, given) || deferred(f, given)) {
          omitted.push(deferred(f, given) ? 'deferred' : f.type);
          continue;
        }
        push(fn(f as FunctionTool, flatName(t.name, f.name)), { namespace: t.name, name: f.name });
      }
    } else omitted.push(t.type);
  };
  for (const t of tools ?? []) add(t, true);
  for (const t of loaded) add(t, false);
  return { tools: out, omitted: [...new Set(omitted)], names };
}

/** `tool_choice` for the chat request; one that requires a tool left out is refused (400). */
export function toolChoiceOf(
  choice: ResponsesRequest['tool_choice'],
  omitted: string[],
  names: ToolNames,
): ChatRequestInput['tool_choice'] {
  if (choice == null) return undefined;
  if (typeof choice === 'string') return choice;
  if (choice.type === 'custom') return { type: 'function', function: { name: (choice as { name: string }).name } }; // its function
  if (choice.type === 'tool_search' && names.get(SEARCH)?.search) return { type: 'function', function: { name: SEARCH } };
  if (choice.type === 'function')
    return {
      type: 'function',
      function: { name: chatName(names, (choice as { name: string }).name, (choice as { namespace?: string }).namespace) },
    };
  if (choice.type === 'allowed_tools') return (choice as { mode: 'auto' | 'required' }).mode;
  throw invalidRequest(
    `tool_choice requires the ${choice.type} tool, which the provider cannot run (Triad passes function tools only${omitted.length ? `; left out: ${omitted.join(', ')}` : ''}).`,
    'tool_choice',
  );
}

/** The chat request for a Responses request with its history (items oldest first, this request's last). */
export function chatRequestOf(req: ResponsesRequest, items: Item[]): { chat: ChatRequestInput; omitted: string[]; names: ToolNames } {
  const loaded = items.flatMap((i) => (i.type === 'tool_search_output' ? (i as { tools: ToolLike[] }).tools : []));
  const { tools, omitted, names } = toolsOf(req.tools, loaded);
  const messages = messagesOf(items, req.instructions, names);
  if (!messages.length) throw invalidRequest('input must not be empty: give a text or at least one item.', 'input');
  const format = req.text?.format;
  const chat: ChatRequestInput = {
    model: req.model,
    messages,
    stream: !!req.stream,
    ...(req.stream ? { stream_options: { include_usage: true } } : {}),
    ...(tools.length ? { tools } : {}),
    ...(tools.length && req.tool_choice != null ? { tool_choice: toolChoiceOf(req.tool_choice, omitted, names) } : {}),
    ...(tools.length && req.parallel_tool_calls != null ? { parallel_tool_calls: req.parallel_tool_calls } : {}),
    ...(format && format.type !== 'text'
      ? {
          response_format:
            format.type === 'json_object'
              ? { type: 'json_object' }
              : {
                  type: 'json_schema',
                  json_schema: {
                    name: (format as { name: string }).name,
                    schema: (format as { schema: Record<string, unknown> }).schema,
                    ...((format as { description?: string | null }).description
                      ? { description: (format as { description: string }).description }
                      : {}),
                    ...((format as { strict?: boolean | null }).strict != null ? { strict: (format as { strict: boolean }).strict } : {}),
                  },
                },
        }
      : {}),
    ...(req.max_output_tokens != null ? { max_tokens: req.max_output_tokens } : {}),
    ...(req.temperature != null ? { temperature: req.temperature } : {}),
    ...(req.top_p != null ? { top_p: req.top_p } : {}),
    ...(req.top_logprobs != null ? { logprobs: true, top_logprobs: req.top_logprobs } : {}),
    ...(req.reasoning?.effort ? { reasoning_effort: req.reasoning.effort } : {}),
    ...(req.user ? { user: req.user } : {}),
    ...routingOf(req),
  };
  if (!tools.length && req.tool_choice != null && typeof req.tool_choice === 'object' && req.tool_choice.type !== 'function')
    toolChoiceOf(req.tool_choice, omitted, names); // a hosted tool required with no tool to give: refused the same way
  return { chat, omitted, names };
}

/** A chat tool call's name as the client named it: a namespace's function with its namespace; whether it is a custom tool's. */
export function callName(names: ToolNames, chatName: string): ToolName {
  return names.get(chatName) ?? { name: chatName };
}

/** The output items of a whole chat reply's message: reasoning, the message (text or refusal), the function (and custom tool) calls. */
export function outputOf(message: WireMessage | undefined, names: ToolNames): Item[] {
  const out: Item[] = [];
  if (!message) return out;
  if (message.reasoning_content) out.push(reasoningItemOf(message.reasoning_content));
  if (message.content || message.refusal) {
    const content: ContentPart[] = [];
    if (message.content) content.push({ type: 'output_text', text: message.content, annotations: [], logprobs: [] } as ContentPart);
    if (message.refusal) content.push({ type: 'refusal', refusal: message.refusal });
    out.push({ type: 'message', id: newItemId('msg'), role: 'assistant', status: 'completed', content } as Item);
  }
  for (const c of message.tool_calls ?? []) {
    const n = callName(names, c.function?.name ?? '');
    out.push(callItemOf(newItemId(callPrefix(n)), c.id ?? newCallId(), n, c.function?.arguments ?? '', 'completed'));
  }
  return out;
}

/** A call id for a model server's call that came without one. */
export const newCallId = () => `call_${randomId(24)}`;

/** The id prefix of a call's item: a function's, a custom tool's or the tool search's. */
export const callPrefix = (n: ToolName) => (n.custom ? 'ctc' : n.search ? 'tsc' : 'fc');

/**
 * A model's tool call as the client's item — a `function_call` (with its namespace), a `custom_tool_call` (its
 * input read out of the arguments) or a client-run `tool_search_call` (its arguments an object): completed from
 * its whole arguments, or in progress with none yet.
 */
export function callItemOf(id: string, callId: string, n: ToolName, args: string, status: 'in_progress' | 'completed'): Item {
  const done = status === 'completed';
  if (n.search)
    return {
      type: 'tool_search_call',
      id,
      call_id: callId,
      execution: 'client',
      arguments: done ? searchArgumentsOf(args) : {},
      status,
    } as Item;
  if (n.custom)
    return { type: 'custom_tool_call', id, call_id: callId, name: n.name, input: done ? customInputOf(args) : '', status } as Item;
  return {
    type: 'function_call',
    id,
    call_id: callId,
    name: n.name,
    ...(n.namespace ? { namespace: n.namespace } : {}),
    arguments: done ? args : '',
    status,
  } as Item;
}

export const reasoningItemOf = (text: string, id = newItemId('rs')): Item =>
  ({ type: 'reasoning', id, summary: [{ type: 'summary_text', text }] }) as Item;

/** Chat usage as the Responses API reports it, with what it cost (USD, design §17). */
export function usageOf(u: TokenUsage, cost: string) {
  const details = u as TokenUsage & {
    prompt_tokens_details?: { cached_tokens?: number } | null;
    completion_tokens_details?: { reasoning_tokens?: number } | null;
  };
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: details.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: details.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: u.total_tokens,
    cost: costNumber(cost),
  };
}

/** How a chat finish reason ends a response: completed, or incomplete with its reason. */
export function statusOf(finish: string): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}
