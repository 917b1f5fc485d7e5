import { z } from 'zod';
import { FUNCTION_NAME, routingFields } from '@/lib/chat/schema';

/*
 * The OpenAI Responses request (design §16) as the official clients send it — the openai SDK's
 * `responses.create`, the Vercel AI SDK's default OpenAI provider, the OpenAI Agents SDK, Codex CLI.
 * What Triad must understand to translate it onto a Chat Completions provider is validated here; other
 * fields are kept as they came (and left out of the translated request, never refused).
 */
const MAX_TEXT = 1_000_000;
const MAX_DATA = 64 * 1024 * 1024;
const text = z.string().max(MAX_TEXT);
const itemId = z.string().min(1).max(200);

const inputText = z.looseObject({ type: z.literal('input_text'), text });
const inputImage = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().max(MAX_DATA).nullish(),
  file_id: z.string().max(200).nullish(),
  detail: z.enum(['auto', 'low', 'high']).nullish(),
});
const inputFile = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().max(MAX_DATA).nullish(),
  file_id: z.string().max(200).nullish(),
  file_url: z.string().max(4000).nullish(),
  filename: z.string().max(500).nullish(),
});
const outputText = z.looseObject({ type: z.literal('output_text'), text });
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: text });
export const contentPart = z.discriminatedUnion('type', [inputText, inputImage, inputFile, outputText, refusal]);
export type ContentPart = z.output<typeof contentPart>;

export const messageItem = z.looseObject({
  type: z.literal('message'),
  id: itemId.optional(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: z.union([text, z.array(contentPart).max(100)]),
  status: z.string().optional(),
});
export const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  id: itemId.optional(),
  call_id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  namespace: z.string().max(200).nullish(),
  arguments: text,
  status: z.string().optional(),
});
export const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  id: itemId.optional(),
  call_id: z.string().min(1).max(200),
  output: z.union([text, z.array(contentPart).max(100)]),
});
export const reasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  id: itemId.optional(),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })).optional(),
});
/** A call of a custom (free-text) tool, as Codex's apply_patch is, and its output. */
export const customToolCallItem = z.looseObject({
  type: z.literal('custom_tool_call'),
  id: itemId.optional(),
  call_id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  input: text,
  status: z.string().optional(),
});
export const customToolCallOutputItem = z.looseObject({
  type: z.literal('custom_tool_call_output'),
  id: itemId.optional(),
  call_id: z.string().min(1).max(200),
  output: z.union([text, z.array(contentPart).max(100)]),
});
/**
 * A tool search's call (Codex's client-run `tool_search`: its arguments an object, the query) and its output:
 * the tools it loaded, which the model may call from then on.
 */
export const toolSearchCallItem = z.looseObject({
  type: z.literal('tool_search_call'),
  id: itemId.optional(),
  call_id: z.string().min(1).max(200).nullish(),
  execution: z.string().max(20).nullish(),
  arguments: z.unknown(),
  status: z.string().nullish(),
});
export const toolSearchOutputItem = z.looseObject({
  type: z.literal('tool_search_output'),
  id: itemId.optional(),
  call_id: z.string().min(1).max(200).nullish(),
  execution: z.string().max(20).nullish(),
  tools: z.array(z.looseObject({ type: z.string().min(1).max(100) })).max(512),
  status: z.string().nullish(),
});
const itemReference = z.looseObject({ type: z.literal('item_reference'), id: itemId });

const knownItem = z.discriminatedUnion('type', [
  messageItem,
  functionCallItem,
  functionCallOutputItem,
  customToolCallItem,
  customToolCallOutputItem,
  toolSearchCallItem,
  toolSearchOutputItem,
  reasoningItem,
  itemReference,
]);
const KNOWN_ITEMS: ReadonlySet<unknown> = new Set(knownItem.options.map((o) => o.shape.type.value));
/**
 * Any other kind of item (a hosted tool's call, a compaction…): kept as it came, for a provider that speaks the
 * Responses API (and in the stored conversation); left out when translated onto Chat Completions, whose
 * providers run none of those tools.
 */
const otherItem = z.looseObject({ type: z.string().min(1).max(100), id: itemId.optional() });
export type OtherItem = z.output<typeof otherItem>;
type KnownItem = z.output<typeof knownItem>;
/** Whether an item is of a kind Triad translates (then its `type` tells which). */
export const isKnownItem = <T extends { type: string }>(item: T): item is Extract<T, { type: KnownItem['type'] }> =>
  KNOWN_ITEMS.has(item.type);

/**
 * An input item; a message may leave out `type` (`{role, content}`, as the SDKs' easy input does). One of
 * the kinds Triad translates is validated as such (its mistakes are the client's 400); any other kind is
 * `otherItem`.
 */
export const inputItem = z.preprocess(
  (v) => (v && typeof v === 'object' && !('type' in v) && 'role' in v ? { ...v, type: 'message' } : v),
  z.unknown().transform((v, ctx): KnownItem | OtherItem => {
    const known = !!v && typeof v === 'object' && KNOWN_ITEMS.has((v as { type?: unknown }).type);
    const parsed = known ? knownItem.safeParse(v) : otherItem.safeParse(v);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as Parameters<typeof ctx.addIssue>[0]); // paths within the item
    return z.NEVER;
  }),
);
export type InputItem = z.output<typeof inputItem>;
/** An item as stored and replayed: every input item but a reference, each with its id. */
export type Item = Exclude<InputItem, { type: 'item_reference' }> & { id: string };

const functionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().regex(FUNCTION_NAME, 'a function name is 1–64 letters, digits, _ or -'),
  description: z.string().max(100_000).nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
export type FunctionTool = z.output<typeof functionTool>;
const namespaceTool = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, 'a namespace name is 1–64 letters, digits, ., _ or -'),
  description: z.string().max(100_000).nullish(),
  tools: z.array(z.looseObject({ type: z.string(), name: z.string().min(1).max(64) })).max(128),
});
/** A custom tool: its input free text (`format` text), or text of a grammar (Codex's apply_patch: Lark). */
const customTool = z.looseObject({
  type: z.literal('custom'),
  name: z.string().regex(FUNCTION_NAME, 'a custom tool name is 1–64 letters, digits, _ or -'),
  description: z.string().max(100_000).nullish(),
  format: z
    .looseObject({ type: z.string().max(100), syntax: z.string().max(100).nullish(), definition: z.string().max(MAX_TEXT).nullish() })
    .nullish(),
});
export type CustomTool = z.output<typeof customTool>;
/** A tool search the client runs itself (`execution: "client"`, as Codex's): its description and its arguments' schema. */
export type ToolSearchTool = { type: 'tool_search'; execution?: string | null; description?: string | null; parameters?: unknown };
/** Any other tool (hosted ones: web_search, file_search, code_interpreter, computer_use, mcp, tool_search, …): kept by its type. */
const otherTool = z.looseObject({ type: z.string().min(1).max(100) });
export const tool = z.union([functionTool, namespaceTool, customTool, otherTool]);

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), name: z.string().min(1).max(64) }),
  z.looseObject({ type: z.literal('custom'), name: z.string().min(1).max(64) }),
  z.looseObject({
    type: z.literal('allowed_tools'),
    mode: z.enum(['auto', 'required']),
    tools: z.array(z.looseObject({ type: z.string() })),
  }),
  z.looseObject({ type: z.string().min(1).max(100) }),
]);

const textFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().regex(FUNCTION_NAME, 'a schema name is 1–64 letters, digits, _ or -'),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1, 'model must not be empty').max(200),
  input: z.union([text, z.array(inputItem).max(2000)]).optional(),
  instructions: text.nullish(),
  previous_response_id: z.string().max(200).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  tools: z.array(tool).max(128).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z.looseObject({ format: textFormat.nullish(), verbosity: z.string().nullish() }).nullish(),
  reasoning: z.looseObject({ effort: z.enum(['minimal', 'low', 'medium', 'high']).nullish(), summary: z.string().nullish() }).nullish(),
  max_output_tokens: z.number().int().min(1).max(1_000_000).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  user: z.string().max(256).nullish(),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullish(),
  background: z.boolean().nullish(),
  ...routingFields,
});
export type ResponsesRequest = z.output<typeof responsesRequestSchema>;

export const inputItemsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().max(200).optional(),
});

/** The response object (the parts clients read; OpenAI's reference has the rest). */
export const responseObjectSchema = z.looseObject({
  id: z.string(),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: z.enum(['completed', 'incomplete', 'failed', 'in_progress']),
  model: z.string(),
  output: z.array(z.looseObject({ type: z.string(), id: z.string() })),
  usage: z
    .looseObject({
      input_tokens: z.number().int(),
      output_tokens: z.number().int(),
      total_tokens: z.number().int(),
      /** What it cost, USD (design §17). */
      cost: z.number().min(0).optional(),
    })
    .nullable(),
  previous_response_id: z.string().nullable(),
});
