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
}
