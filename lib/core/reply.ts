/*
 * A reply that does not depend on the server sending it: a JSON body, a text body (its Content-Type
 * in `headers`), or a stream of text chunks (Server-Sent Events). Every route handler builds one;
 * lib/http/reply.ts writes it as a Web Response (Next's router) or straight to Node's response (the
 * server's direct dispatch).
 */
export type Reply = { status: number; headers: Record<string, string> } & ({ json: unknown } | { text: string } | { stream: ReplyStream });

export type ReplyStream = {
  /** Produces the whole stream through `send` (awaiting it honours the client's pace); never rejects. */
  run(send: (chunk: string) => Promise<void> | void): Promise<void>;
  /** The client went away: stop producing (and whatever feeds it). */
  cancel(reason?: unknown): void;
};
