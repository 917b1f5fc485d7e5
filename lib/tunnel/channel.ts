import type { Frame } from './protocol';

/*
 * One request's two directions on a tunnel, with flow control (design §14): a side sends at most the
 * credit the other granted, in pieces of at most PIECE characters, and grants credit back as its
 * reader takes what arrived. Shared by Triad and the agent.
 */
export const PIECE = 16 * 1024;

/** Raised on a frame that breaks the protocol (data over the credit granted, after the end): the tunnel is closed. */
export class ProtocolViolation extends Error {
  override name = 'ProtocolViolation';
}

export class Channel {
  /** Characters this side may still send. */
  private credit: number;
  private creditWaiter: (() => void) | null = null;
  /** What arrived and was not read yet. */
  private queue: string[] = [];
  /** Characters the other side may still send (more is a violation), and those read but not granted back yet. */
  private allowance: number;
  private readBack = 0;
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private closedHere = false;

  constructor(
    readonly id: number,
    private readonly send: (f: Frame) => void,
    /** The credit the other side granted at the start (its window). */
    peerWindow: number,
    /** The credit this side grants at the start (its window). */
    private readonly window: number,
  ) {
    this.credit = peerWindow;
    this.allowance = window;
  }

  /** Sends `text` as data frames, waiting for credit; false if the channel was closed meanwhile. */
  async write(text: string): Promise<boolean> {
    let at = 0;
    while (at < text.length) {
      if (this.closedHere || this.failure) return false;
      if (this.credit <= 0) {
        await new Promise<void>((r) => (this.creditWaiter = r));
        continue;
      }
      const n = Math.min(this.credit, PIECE, text.length - at);
      this.send({ t: 'data', id: this.id, d: text.slice(at, at + n) });
      this.credit -= n;
      at += n;
    }
    return !this.closedHere && !this.failure;
  }

  /** Whether the other side sent its end. */
  get finished(): boolean {
    return this.ended;
  }

  /** The end of what this side sends. */
  end(): void {
    if (!this.closedHere && !this.failure) this.send({ t: 'end', id: this.id });
  }

  /** The other side's frames for this channel. */
  receive(f: Frame): void {
    if (f.t === 'data') {
      if (this.ended) throw new ProtocolViolation(`data after the end of request ${this.id}`);
      this.allowance -= f.d.length;
      if (this.allowance < 0) throw new ProtocolViolation(`request ${this.id}: more data than the credit granted`);
      if (f.d) this.queue.push(f.d);
    } else if (f.t === 'end') this.ended = true;
    else if (f.t === 'win') {
      this.credit += f.n;
      const w = this.creditWaiter;
      this.creditWaiter = null;
      w?.();
      return;
    }
    this.notify();
  }

  /** Ends the channel with an error for its reader and writer (the tunnel closed, the request was cancelled). */
  fail(e: Error): void {
    this.failure ??= e;
    this.notify();
    const w = this.creditWaiter;
    this.creditWaiter = null;
    w?.();
  }

  /** This side is done with the channel: nothing more is sent or granted. */
  close(): void {
    this.closedHere = true;
    const w = this.creditWaiter;
    this.creditWaiter = null;
    w?.();
  }

  /** What the other side sends, piece by piece; credit goes back as each piece is taken. */
  async *pieces(): AsyncGenerator<string> {
    for (;;) {
      const piece = this.queue.shift();
      if (piece !== undefined) {
        yield piece;
        // Granted back in steps of a quarter window, not per piece: fewer frames.
        this.readBack += piece.length;
        if (this.readBack >= this.window / 4 && !this.closedHere && !this.ended) {
          this.allowance += this.readBack;
          this.send({ t: 'win', id: this.id, n: this.readBack });
          this.readBack = 0;
        }
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  /** All of it, as one text. */
  async text(): Promise<string> {
    let out = '';
    for await (const p of this.pieces()) out += p;
    return out;
  }

  private notify() {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}
