/*
 * A model server as the providers reach it, behind one interface whatever the way there: HTTP to an
 * OpenAI-compatible server today (./http-client.ts), a node's tunnel next. It speaks conversations and
 * sampling options, not the chat API's wire objects: those, and the completion built from these events,
 * are lib/chat's. (The built-in triad-guide answers through the same interface.)
 */
export type ModelMessage = { role: string; content: string };
export type FinishReason = 'stop' | 'length';
export type TokenUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };

/** What a model server is asked: the conversation and the sampling options passed on. */
export type ModelRequest = {
  model: string;
  messages: ModelMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  seed?: number;
  signal: AbortSignal;
};

/** What a model server yields, in order: content deltas, then one finish, and usage when it knows it. */
export type ModelEvent =
  { type: 'delta'; content: string } | { type: 'finish'; reason: FinishReason } | { type: 'usage'; usage: TokenUsage };

export interface ModelClient {
  /** Generates a reply. Errors before the first event are ApiErrors; later ones end the stream. */
  generate(req: ModelRequest): AsyncGenerator<ModelEvent>;
  /** The whole reply at once, where the client can do that more cheaply than by streaming. */
  complete?(req: ModelRequest): Promise<{ content: string; finish: FinishReason; usage: TokenUsage | null }>;
}
