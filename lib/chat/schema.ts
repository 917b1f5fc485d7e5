import { z } from 'zod';

/*
 * The chat request (interface 2.1; design §4, §13): the interface's text-parts request, and the OpenAI
 * Chat Completions dialect as the official clients send it — every role, content as a string or parts
 * (text, images, audio, files), tool calls and their results, tools, structured output, reasoning.
 * What Triad must understand is validated here; every other field (top-level, or on a message or a
 * part) is kept as it came and passed on to the model server: nothing a client sent is dropped.
 * Shared by the route, the playground and the OpenAPI document.
 */
export const MAX_MESSAGES = 1000;
const MAX_TEXT = 1_000_000;
/** Images, audio and files as data: URLs or base64: up to the chat body limit (TRIAD_MAX_CHAT_BODY_BYTES). */
const MAX_DATA = 64 * 1024 * 1024;

const text = z.string().max(MAX_TEXT);
const textPart = z.looseObject({ type: z.literal('text'), text });
/** An image by http(s) URL or a `data:` URL (within the body limit). */
const imageUrl = z
  .string()
  .max(MAX_DATA)
  .refine(
    (u) => /^https?:\/\//i.test(u) || /^data:image\/[a-z0-9.+-]+;base64,/i.test(u),
    'an image URL is http(s):// or data:image/…;base64,…',
  );
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: imageUrl, detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const audioPart = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string().max(MAX_DATA), format: z.string().max(20) }),
});
const filePart = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    file_data: z.string().max(MAX_DATA).optional(),
    file_id: z.string().max(200).optional(),
    filename: z.string().max(500).optional(),
  }),
});
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: text });
const userPart = z.discriminatedUnion('type', [textPart, imagePart, audioPart, filePart]);
const parts = <T extends z.ZodType>(part: T) => z.array(part).min(1).max(100);

export const toolCallSchema = z.looseObject({
  id: z.string().min(1).max(200),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string().min(1).max(200), arguments: z.string().max(MAX_TEXT) }),
});
const name = z.string().max(200).optional();

export const messageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.enum(['system', 'developer']), content: z.union([text, parts(textPart)]), name }),
  z.looseObject({ role: z.literal('user'), content: z.union([text, parts(userPart)]), name }),
  z
    .looseObject({
      role: z.literal('assistant'),
      content: z.union([text, parts(z.discriminatedUnion('type', [textPart, refusalPart]))]).nullish(),
      tool_calls: z.array(toolCallSchema).max(128).optional(),
      refusal: text.nullish(),
      name,
    })
    .refine((m) => m.content != null || !!m.tool_calls?.length, {
      message: 'an assistant message has content or tool_calls',
      path: ['content'],
    }),
  z.looseObject({ role: z.literal('tool'), content: z.union([text, parts(textPart)]), tool_call_id: z.string().min(1).max(200) }),
]);
export type ChatMessage = z.output<typeof messageSchema>;

/** What a chat function's (or a tool's that becomes one) name may be: 1–64 of [a-zA-Z0-9_-]. */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const toolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(FUNCTION_NAME, 'a function name is 1–64 letters, digits, _ or -'),
    description: z.string().max(100_000).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1).max(64) }) }),
]);
const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().regex(FUNCTION_NAME, 'a schema name is 1–64 letters, digits, _ or -'),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);
const penalty = z.number().min(-2).max(2).optional();
const maxTokens = z.number().int().min(1).max(1_000_000).optional();

/**
 * Routing preferences (design §17), OpenRouter's `provider` object: what lib/providers/preferences.ts
 * routes by. OpenRouter's fields Triad has no use for are accepted and ignored.
 */
const providerNames = (field: string) =>
  z
    .array(z.string().min(1).max(200), { error: `provider.${field} is a list of provider names` })
    .max(100, `provider.${field} names at most 100 providers`)
    .optional();
export const preferencesSchema = z.looseObject({
  order: providerNames('order'),
  only: providerNames('only'),
  ignore: providerNames('ignore'),
  allow_fallbacks: z.boolean({ error: 'provider.allow_fallbacks is true or false' }).nullish(),
  sort: z.enum(['price', 'latency', 'throughput'], { error: 'provider.sort is price, latency or throughput' }).nullish(),
  max_price: z
    .looseObject({
      prompt: z.number().min(0, 'provider.max_price.prompt is USD per million tokens, not negative').optional(),
      completion: z.number().min(0, 'provider.max_price.completion is USD per million tokens, not negative').optional(),
    })
    .optional(),
});
export type Preferences = z.infer<typeof preferencesSchema>;

/**
 * What a request may say of its routing (design §17), on every completion API (Chat Completions,
 * Responses, Messages): consumed by Triad, never sent to a model server.
 */
export const routingFields = {
  /** Routing preferences, OpenRouter's. */
  provider: preferencesSchema.optional(),
  /** Fallback models, tried in turn when the first cannot be served (the reply's `model` says which answered). */
  models: z
    .array(z.string().min(1).max(200), { error: 'models is a list of model names' })
    .max(10, 'models names at most 10 fallbacks')
    .optional(),
};

/** A request's routing fields, as they are to be passed on to the chat request it translates to. */
export const routingOf = (req: { provider?: Preferences; models?: string[] }) => ({
  ...(req.provider ? { provider: req.provider } : {}),
  ...(req.models ? { models: req.models } : {}),
});

/** A request's body as a model server gets it: with `changes` made, and without Triad's routing fields. */
export function withoutRouting(body: object, changes: Record<string, unknown>): Record<string, unknown> {
  const sent: Record<string, unknown> = { ...body, ...changes };
  delete sent.provider;
  delete sent.models;
  return sent;
}

export const chatRequestSchema = z.looseObject({
  model: z.string().min(1, 'model must not be empty').max(200),
  messages: z.array(messageSchema).min(1, 'messages must not be empty').max(MAX_MESSAGES),
  stream: z.boolean().optional().default(false),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: maxTokens,
  max_completion_tokens: maxTokens,
  stop: z.union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(4)]).nullish(),
  seed: z.number().int().optional(),
  n: z.number().int().min(1).max(16).optional(),
  presence_penalty: penalty,
  frequency_penalty: penalty,
  logit_bias: z.record(z.string().regex(/^\d+$/, 'logit_bias keys are token ids'), z.number().min(-100).max(100)).optional(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(0).max(20).nullish(),
  user: z.string().max(256).optional(),
  metadata: z.record(z.string().max(64), z.string().max(512)).optional(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).nullish(),
  tools: z.array(toolSchema).max(128).optional(),
  tool_choice: toolChoiceSchema.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: responseFormatSchema.optional(),
  ...routingFields,
});
export type ChatRequest = z.output<typeof chatRequestSchema>;
/** A request as a client writes it (content as a string or as parts). */
export type ChatRequestInput = z.input<typeof chatRequestSchema>;
/** A message as text only: what the built-in guide and the tokenizer read of it. */
export type PlainMessage = { role: ChatMessage['role']; content: string };

/** The text of a message's content (text and refusal parts joined; other parts are not text). */
export function contentText(content: ChatMessage['content']): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : p.type === 'refusal' ? p.refusal : '')).join('');
}

/**
 * Another API's text blocks (Messages, Responses) as one chat message's text: a line between them. Blocks
 * are sections — a system prompt cut where its cache breakpoints fall, an agent's reminder before the
 * user's words — not halves of a word, and run together they would read as one ("…;You are…").
 */
export const joinBlocks = (texts: string[]): string => texts.filter((t) => t !== '').join('\n');

/** Messages with their content as one string: text parts joined, an assistant's tool calls as their names and arguments. */
export function plainMessages(req: Pick<ChatRequest, 'messages'>): PlainMessage[] {
  return req.messages.map((m) => {
    const calls = m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => `${c.function.name} ${c.function.arguments}`).join('\n') : '';
    return { role: m.role, content: calls ? [contentText(m.content), calls].filter(Boolean).join('\n') : contentText(m.content) };
  });
}

/** Wire shapes (interface 2.2, 2.3, and the dialect's fields beyond them; the model list beyond it). */
export const usageSchema = z.looseObject({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int().optional() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().optional() }).nullish(),
  /** What the completion cost, USD, at the serving provider's prices (design §17; as OpenRouter's usage says it). */
  cost: z.number().min(0).optional(),
});
export type Usage = z.infer<typeof usageSchema>;
export const finishReasonSchema = z.enum(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);
const logprobsSchema = z.looseObject({ content: z.array(z.looseObject({ token: z.string(), logprob: z.number() })).nullish() }).nullish();
export const chatCompletionSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      message: z.looseObject({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        tool_calls: z.array(toolCallSchema).optional(),
        refusal: z.string().nullish(),
        reasoning_content: z.string().nullish(),
      }),
      logprobs: logprobsSchema,
      finish_reason: finishReasonSchema,
    }),
  ),
  usage: usageSchema,
});
const toolCallDeltaSchema = z.looseObject({
  index: z.number().int(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
});
export const chatCompletionChunkSchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      delta: z.looseObject({
        role: z.literal('assistant').optional(),
        content: z.string().nullish(),
        tool_calls: z.array(toolCallDeltaSchema).optional(),
        refusal: z.string().nullish(),
        reasoning_content: z.string().nullish(),
      }),
      logprobs: logprobsSchema,
      finish_reason: finishReasonSchema.nullable(),
    }),
  ),
  usage: usageSchema.nullish(),
});
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;
export const modelInfoSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.string(),
  /** The context length in tokens, where the model's servers say it (the smallest of theirs). */
  context_length: z.number().int().positive().optional(),
  /** Beyond OpenAI's list: how many providers serve the model, and how many of them are in service (none for triad-guide). */
  providers: z.object({ total: z.number().int(), healthy: z.number().int() }).optional(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;
export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelInfoSchema) });
