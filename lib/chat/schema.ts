import { z } from 'zod';

/*
 * The chat request (interface 2.1, design §4): `content` as an array of text parts, as the interface
 * shows, or a plain string, as every OpenAI client sends. Sampling options are passed on to the
 * upstream. Unknown fields are ignored. Shared by the route and the playground.
 */
export const ROLES = ['system', 'user', 'assistant'] as const;
export const MAX_MESSAGES = 1000;

const textPart = z.object({ type: z.literal('text'), text: z.string().max(1_000_000) });
export const messageSchema = z.object({
  role: z.enum(ROLES),
  content: z.union([z.string().max(1_000_000), z.array(textPart).min(1).max(100)]),
});

export const chatRequestSchema = z.object({
  model: z.string().min(1, 'model must not be empty').max(200),
  messages: z.array(messageSchema).min(1, 'messages must not be empty').max(MAX_MESSAGES),
  stream: z.boolean().optional().default(false),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).optional(),
  stop: z.union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(4)]).optional(),
  seed: z.number().int().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
});
export type ChatRequest = z.output<typeof chatRequestSchema>;
/** A request as a client writes it (content as a string or as text parts). */
export type ChatRequestInput = z.input<typeof chatRequestSchema>;
export type ChatMessage = { role: (typeof ROLES)[number]; content: string };

/** Messages with their content as one string (text parts joined). */
export function plainMessages(req: ChatRequest): ChatMessage[] {
  return req.messages.map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join(''),
  }));
}

/** Wire shapes (interface 2.2, 2.3; the model list beyond it). */
export const usageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});
export type Usage = z.infer<typeof usageSchema>;
export const finishReasonSchema = z.enum(['stop', 'length']);
export type FinishReason = z.infer<typeof finishReasonSchema>;
export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal('assistant'), content: z.string() }),
      finish_reason: finishReasonSchema,
    }),
  ),
  usage: usageSchema,
});
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;
export const chatCompletionChunkSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
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
  /** Beyond OpenAI's list: how many providers serve the model, and how many of them are in service (none for triad-guide). */
  providers: z.object({ total: z.number().int(), healthy: z.number().int() }).optional(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;
export const modelListSchema = z.object({ object: z.literal('list'), data: z.array(modelInfoSchema) });
