import type { ApiError } from '@/lib/core/errors';
import type { Reply } from '@/lib/core/reply';
import type { ModelCall, TokenUsage, Wire } from '@/lib/providers/client';

/*
 * A dialect (design §16): how one API surface speaks to its clients, handed to the completion pipeline
 * (./complete.ts), which speaks Chat Completions to the model servers. The dialects (lib/dialects/)
 * implement this seam; the pipeline knows no dialect. It turns the client's
 * request into what a model server gets, and the server's replies — whole, or chunk by chunk — into
 * the client's format. The pipeline keeps the accounts (usage, latency, earnings) and drives the
 * stream; a dialect only translates, with its own stream state. One dialect object serves one request.
 */

/** What the pipeline knows of a completion so far, for a dialect to end its reply with. */
export type Ledger = {
  /** How the server said the completion ended (`stop` when it did not say). */
  finish(): string;
  /** Whether the server sent a finish reason. */
  finished(): boolean;
  /** Whether the server reported usage. */
  hasUsage(): boolean;
  /** Usage as the server reported it, else counted. */
  usage(): TokenUsage;
  /** What that usage costs at the serving provider's prices, USD (exact decimal text; design §17). */
  cost(): string;
};

export interface Dialect {
  /** The request for the model server under its own model name `serverModel` (a stream asks for usage). */
  outgoing(serverModel: string): Omit<ModelCall, 'signal'>;
  /** The whole reply for the client (the pipeline has absorbed `wire` into the ledger already). */
  whole(wire: Wire, ledger: Ledger): Reply | Promise<Reply>;
  /** The headers of a streamed reply. */
  readonly streamHeaders: Record<string, string>;
  /** What a stream begins with, before the server's first chunk ('' for nothing). */
  open(): string;
  /** One chunk of the server's stream as the text to send (whole Server-Sent Events), or null. */
  chunk(wire: Wire, ledger: Ledger): string | null;
  /** The end of a stream the server finished. */
  close(ledger: Ledger): string | Promise<string>;
  /** The end of a stream that failed after its first byte. */
  fail(error: ApiError, ledger: Ledger): string;
  /** The dialect as a model server that speaks it natively gets it: passed through, not translated. */
  readonly native?: NativeDialect;
}

/** What a dialect passed through tells the ledger: the server's usage, the text it wrote (counted when no usage came), how it ended. */
export type NativeLedger = Ledger & {
  absorbUsage(usage: TokenUsage): void;
  absorbText(text: string): void;
  absorbFinish(reason: string): void;
};

/**
 * A dialect passed through to a model server that declares it speaks it (a provider's `endpoints`,
 * design §16): the client's request as written (the server's model name in it), and the server's
 * reply with only what must be ours rewritten (the client's model name; a stored response's id), its
 * usage read into the ledger.
 */
export interface NativeDialect {
  /** Which of a provider's `endpoints` it needs. */
  readonly endpoint: 'responses' | 'messages';
  /** The headers of a streamed reply. */
  readonly streamHeaders: Record<string, string>;
  outgoing(serverModel: string): Omit<ModelCall, 'signal'>;
  whole(value: Record<string, unknown>, ledger: NativeLedger): Reply | Promise<Reply>;
  /** One event of the server's stream (its `data`), as the client gets it (whole Server-Sent Events), or null. */
  event(data: string, ledger: NativeLedger): string | null;
  /** The end of a stream the server finished ('' when its own events said it all). */
  close(ledger: Ledger): string | Promise<string>;
}
