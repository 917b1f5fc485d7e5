import type { ChatMessage, FinishReason, Usage } from '../schema';

/** What an engine is asked: the conversation and the sampling options passed on. */
export type EngineRequest = {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  seed?: number;
  signal: AbortSignal;
};

/** What an engine yields, in order: content deltas, then one finish, and usage when it knows it. */
export type EngineEvent = { type: 'delta'; content: string } | { type: 'finish'; reason: FinishReason } | { type: 'usage'; usage: Usage };

export interface ChatEngine {
  /** Generates a reply. Errors before the first event are ApiErrors; later ones end the stream. */
  generate(req: EngineRequest): AsyncGenerator<EngineEvent>;
  /** The whole reply at once, where the engine can do that more cheaply than by streaming. */
  complete?(req: EngineRequest): Promise<{ content: string; finish: FinishReason; usage: Usage | null }>;
}
