import { z } from 'zod';
import { FUNCTION_NAME, routingFields } from '@/lib/chat/schema';

/*
 * Anthropic's Messages request (design §16) as the Anthropic SDK and Claude Code send it. What Triad
 * must understand to translate it onto a Chat Completions provider is validated here; everything else
 * (cache_control, thinking, metadata, context_management, citations, …) is kept as it came and left out
 * of the translated request — never refused.
 */
const MAX_TEXT = 1_000_000;
const MAX_DATA = 64 * 1024 * 1024;
const text = z.string().max(MAX_TEXT);

const textBlock = z.looseObject({ type: z.literal('text'), text });
const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('base64'), media_type: z.string().max(100), data: z.string().max(MAX_DATA) }),
    z.looseObject({ type: z.literal('url'), url: z.string().max(4000) }),
  ]),
});
const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(200),
  input: z.unknown(),
});
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1).max(200),
  content: z.union([text, z.array(z.looseObject({ type: z.string() })).max(100)]).optional(),
  is_error: z.boolean().optional(),
});
/** Blocks Triad translates; any other kind (thinking, documents, server tools' results…) is kept by its type and left out. */
const otherBlock = z.looseObject({ type: z.string().min(1).max(100) });
export const block = z.union([textBlock, imageBlock, toolUseBlock, toolResultBlock, otherBlock]);
export type Block = z.output<typeof block>;

/** A `system` message among the others: Claude Code sends them (its agents' and reminders' text). */
export const messagesMessage = z.looseObject({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([text, z.array(block).max(1000)]),
});

const customTool = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().regex(FUNCTION_NAME, 'a tool name is 1–64 letters, digits, _ or -'),
  description: z.string().max(100_000).optional(),
  input_schema: z.record(z.string(), z.unknown()),
});
/** A server tool (web search, code execution, bash, text editor, computer use…): kept by its type and name, left out. */
const serverTool = z.looseObject({ type: z.string().min(1).max(100), name: z.string().max(200).optional() });
export const messagesTool = z.union([customTool, serverTool]);

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1, 'model must not be empty').max(200),
  max_tokens: z.number().int().min(1).max(1_000_000),
  messages: z.array(messagesMessage).min(1, 'messages must not be empty').max(10_000),
  system: z.union([text, z.array(textBlock).max(100)]).optional(),
  stop_sequences: z.array(z.string().max(200)).max(1000).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  tools: z.array(messagesTool).max(1000).optional(),
  tool_choice: z
    .looseObject({
      type: z.enum(['auto', 'any', 'tool', 'none']),
      name: z.string().max(200).optional(),
      disable_parallel_tool_use: z.boolean().optional(),
    })
    .optional(),
  metadata: z.looseObject({ user_id: z.string().max(512).nullish() }).optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
  ...routingFields,
});
export type MessagesRequest = z.output<typeof messagesRequestSchema>;

/** count_tokens takes the request without max_tokens. */
export const countTokensSchema = messagesRequestSchema.omit({ max_tokens: true, stream: true });

export const messageObjectSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string().nullable(),
  usage: z.looseObject({ input_tokens: z.number().int(), output_tokens: z.number().int(), cost: z.number().min(0).optional() }),
});
