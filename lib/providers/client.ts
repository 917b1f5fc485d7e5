/*
 * A model server as the providers reach it, behind one interface whatever the way there: HTTP to an
 * OpenAI-compatible server (./http-client.ts), a node's tunnel (lib/tunnel/), the built-in triad-guide
 * (./guide.ts). It carries the Chat Completions dialect as it is: the request body the client
 * sent (with the server's own model name), and the reply objects the server wrote, whole or chunk by
 * chunk. What a completion makes of them (its id, the client's usage request, accounting) is lib/chat's.
 */

/** The parts of a reply object a gateway reads; everything else in it is passed on untouched. */
export type WireChoice = {
  index?: number;
  message?: WireMessage;
  delta?: WireMessage;
  finish_reason?: string | null;
  [field: string]: unknown;
};
export type WireMessage = {
  role?: string;
  content?: string | null;
  reasoning_content?: string | null;
  refusal?: string | null;
  tool_calls?: { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }[];
  [field: string]: unknown;
};
export type TokenUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number; [field: string]: unknown };
/** A `chat.completion` or a `chat.completion.chunk`, as the model server wrote it. */
export type WireReply = {
  id?: string;
  object?: string;
  created?: number;
  model?: string;
  choices?: WireChoice[];
  usage?: TokenUsage | null;
  error?: { message?: string };
  [field: string]: unknown;
};

/**
 * One call to a model server: the path under its base (`/chat/completions`, `/embeddings`), the request
 * body to send (the server's model name in it) and, when the client's own text says exactly that, the
 * text (sent as it is); headers of its own, if any.
 */
/** The path of a Chat Completions call under a server's base. */
export const CHAT_COMPLETIONS = '/chat/completions';

export type ModelCall = {
  path: string;
  body: Record<string, unknown>;
  json?: string;
  /** Request headers for the server beyond the body's type and the provider's key (`anthropic-version`…). */
  headers?: Record<string, string>;
  signal: AbortSignal;
};

/** A reply object as the model server wrote it, and the JSON text it came as (when it came as text). */
export type Wire = { value: WireReply; text?: string };

export interface ModelClient {
  /** A JSON exchange other than a completion (`/embeddings`): the reply object. */
  post(call: ModelCall): Promise<{ value: Record<string, unknown> }>;
  /** The whole reply. Errors before anything reached the client are ApiErrors (so that another provider may be tried). */
  complete(call: ModelCall): Promise<Wire>;
  /**
   * The stream's chunks, in order, until `[DONE]`: those that came together as one batch (never an empty
   * one), so that the relay loops over a read's chunks with no turn of the microtask queue between them.
   * Errors before the first chunk are ApiErrors; later ones end the stream.
   */
  stream(call: ModelCall): AsyncGenerator<Wire[]>;
  /**
   * A stream of another dialect, passed through (design §16): each event's `data` as the server wrote it,
   * in batches as for `stream`, until the stream ends (or `[DONE]`). Errors as for `stream`.
   */
  relay(call: ModelCall): AsyncGenerator<string[]>;
}
