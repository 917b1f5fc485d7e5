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
export type ChatMessage = { role: (typeof ROLES)[number]; content: string };

/** Messages with their content as one string (text parts joined). */
export function plainMessages(req: ChatRequest): ChatMessage[] {
  return req.messages.map((m) => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join(''),
  }));
}

/** Wire shapes (interface 2.2, 2.3). */
export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
export type FinishReason = 'stop' | 'length';
export type ChatCompletion = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string }; finish_reason: FinishReason }[];
  usage: Usage;
};
export type ChatCompletionChunk = {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: 'assistant'; content?: string }; finish_reason: FinishReason | null }[];
  usage?: Usage | null;
};
export type ModelInfo = { id: string; object: 'model'; created: number; owned_by: string };
