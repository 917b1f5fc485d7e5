import fs from 'node:fs';
import path from 'node:path';
import type { PlainMessage } from './schema';

/*
 * Token counts with the o200k byte-pair encoding (GPT-4o's), for engines that do not report usage
 * and for a budget's most possible cost (design §17). Counting only: text is split as the encoding
 * splits it, each piece's UTF-8 bytes merged pair by pair, lowest rank first (tiktoken's algorithm),
 * and the parts counted. The encoding's tokens come from the build's table (scripts/token-table.mjs:
 * 1.8 MB of bytes, indexed here in typed arrays outside the JavaScript heap), read at the first count.
 * Special tokens (`<|endoftext|>`) in a text are counted as the text they are, as tiktoken does with
 * nothing allowed or disallowed: a prompt may quote them.
 */

const CONTRACTION = String.raw`(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?`;
/** The o200k encoding's pre-tokenizer (as tiktoken and gpt-tokenizer have it). */
const SPLIT = new RegExp(
  String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTION}|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTION}|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
  'gu',
);

const NONE = 0x7fffffff;

/**
 * The encoding's tokens: their bytes one after another in rank order (rank r is bytes[starts[r],
 * starts[r + 1])), and a hash of byte strings to ranks (open addressing, four slots for three tokens, a
 * token's first slot its hash modulo their number): each slot holds a rank in its low RANK_BITS and,
 * above them, the high bits of its token's hash, so that a probe compares bytes only when those agree.
 * 3.3 MB in all (the bytes 1.4, their starts 0.8, the slots 1.1). The slots' count is not rounded up to a
 * power of two: for o200k's 200 000 tokens that doubled them (4.2 MB in all); a slot of the rank alone
 * in a table twice the tokens' count, with their lengths apart, took 4.6 (`npm run bench:memory`).
 */
type Table = { bytes: Uint8Array; starts: Uint32Array; slots: Uint32Array; longest: number };

const RANK_BITS = 18;
const EMPTY = 0xffffffff;

let table: Table | undefined;

function loadTable(): Table {
  // The path spelt out under process.cwd(): the build traces this file only (a path held in a variable
  // makes Next trace the whole project into its output; see lib/providers/guide.ts).
  const file = path.join(process.cwd(), '.next', 'triad', 'o200k.bin');
  let data: Buffer;
  try {
    data = fs.readFileSync(path.join(process.cwd(), '.next', 'triad', 'o200k.bin'));
  } catch (e) {
    throw new Error(`the tokenizer's table ${file} is missing (it is made by the build: npm run build): ${(e as Error).message}`);
  }
  if (data.toString('latin1', 0, 6) !== 'o200k\n') throw new Error(`${file} is not an o200k token table`);
  const count = data.readUInt32LE(6);
  if (count >= 1 << RANK_BITS) throw new Error(`${file} holds ${count} tokens, more than the tokenizer ranks`);
  const bytes = new Uint8Array(data.subarray(10 + count * 2)); // a copy: the file's buffer is not kept
  const starts = new Uint32Array(count + 1);
  for (let i = 0; i < count; i++) starts[i + 1] = starts[i]! + data.readUInt16LE(10 + i * 2);
  const slots = new Uint32Array(Math.ceil((count * 4) / 3)).fill(EMPTY);
  let longest = 0;
  for (let rank = 0; rank < count; rank++) {
    const [at, end] = [starts[rank]!, starts[rank + 1]!];
    if (at === end) continue; // an unused rank
    longest = Math.max(longest, end - at);
    const h = hash(bytes, at, end);
    let slot = firstSlot(h, slots.length);
    while (slots[slot] !== EMPTY) slot = nextSlot(slot, slots.length);
    slots[slot] = (rank | ((h >>> RANK_BITS) << RANK_BITS)) >>> 0;
  }
  return { bytes, starts, slots, longest };
}

/** FNV-1a over bytes[from, to). */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The first slot of a hash among `size` (a small integer's remainder: the hash's top bit dropped). */
const firstSlot = (h: number, size: number) => (h >>> 1) % size;
/** The slot probed after `slot` among `size`: the next one, the first after the last. */
const nextSlot = (slot: number, size: number) => (slot + 1 === size ? 0 : slot + 1);

/** The rank of the token whose bytes are piece[from, to), or NONE. */
function rankOf(t: Table, piece: Uint8Array, from: number, to: number): number {
  const length = to - from;
  const h = hash(piece, from, to);
  const high = h >>> RANK_BITS;
  const { slots } = t;
  for (let slot = firstSlot(h, slots.length); ; slot = nextSlot(slot, slots.length)) {
    const entry = slots[slot]!;
    if (entry === EMPTY) return NONE;
    if (entry >>> RANK_BITS !== high) continue;
    const rank = entry & ((1 << RANK_BITS) - 1);
    const start = t.starts[rank]!;
    if (t.starts[rank + 1]! - start !== length) continue;
    let same = true;
    for (let i = 0; i < length; i++) {
      if (t.bytes[start + i] !== piece[from + i]) {
        same = false;
        break;
      }
    }
    if (same) return rank;
  }
}

const encoder = new TextEncoder();
/** Pieces up to this many bytes are merged in buffers kept between calls; a longer one gets its own, let go after it. */
const KEPT = 1 << 16;
const scratch = new Uint8Array(KEPT);

/**
 * How many tokens a piece of `n` bytes (the start of `piece`) becomes: tiktoken's byte-pair merge — the
 * adjacent pair of parts whose bytes make the lowest-ranked token merged first, the leftmost of equal
 * ones — with the parts in a linked list and the pairs in a heap, so that a long piece (a run of
 * 100 000 "a"s is one) takes n log n steps, not n² (a quadratic merge let one prompt hold the server).
 */
function mergedCount(t: Table, piece: Uint8Array, n: number): number {
  if (n === 1 || (n <= t.longest && rankOf(t, piece, 0, n) !== NONE)) return 1;
  const merge = Merge.sized(n);
  const { next, prev, rank } = merge;
  // Part i starts at byte i and ends where next[i] starts (n: the end); rank[i] ranks it merged with its next.
  const pairRank = (i: number) => {
    const after = next[i]!;
    if (after >= n) return NONE;
    const end = next[after]!;
    return end - i > t.longest ? NONE : rankOf(t, piece, i, end);
  };
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  next[n] = n;
  merge.clear();
  for (let i = 0; i < n - 1; i++) if ((rank[i] = pairRank(i)) !== NONE) merge.push(rank[i]!, i);
  let parts = n;
  for (;;) {
    const top = merge.pop();
    if (top < 0) break;
    const i = top % (n + 1);
    const r = Math.floor(top / (n + 1));
    if (next[i] === -1 || rank[i] !== r) continue; // merged away, or ranked again since
    const gone = next[i]!;
    next[i] = next[gone]!;
    if (next[gone]! < n) prev[next[gone]!] = i;
    next[gone] = -1;
    parts--;
    if ((rank[i] = pairRank(i)) !== NONE) merge.push(rank[i]!, i);
    const before = prev[i]!;
    if (before >= 0 && (rank[before] = pairRank(before)) !== NONE) merge.push(rank[before]!, before);
  }
  return parts;
}

/** The merge's working arrays (kept between calls up to KEPT bytes), and a binary min-heap of rank × (n + 1) + part. */
class Merge {
  private static kept = new Merge(1024);
  next: Int32Array;
  prev: Int32Array;
  rank: Int32Array;
  private heap: Float64Array;
  private size = 0;
  private width = 1;

  private constructor(n: number) {
    this.next = new Int32Array(n + 1);
    this.prev = new Int32Array(n + 1);
    this.rank = new Int32Array(n + 1);
    this.heap = new Float64Array(2 * n + 16); // grown when a merge pushes more (at most 3n in all)
  }

  static sized(n: number): Merge {
    let merge = Merge.kept;
    if (merge.next.length < n + 1) {
      merge = new Merge(n);
      if (n <= KEPT) Merge.kept = merge;
    }
    merge.width = n + 1;
    return merge;
  }

  clear() {
    this.size = 0;
  }

  push(rank: number, part: number) {
    if (this.size === this.heap.length) {
      const grown = new Float64Array(this.heap.length * 2);
      grown.set(this.heap);
      this.heap = grown;
    }
    const h = this.heap;
    const key = rank * this.width + part;
    let at = this.size++;
    while (at > 0) {
      const up = (at - 1) >> 1;
      if (h[up]! <= key) break;
      h[at] = h[up]!;
      at = up;
    }
    h[at] = key;
  }

  /** The smallest key, or -1 when the heap is empty. */
  pop(): number {
    if (this.size === 0) return -1;
    const h = this.heap;
    const top = h[0]!;
    const last = h[--this.size]!;
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && h[child + 1]! < h[child]!) child++;
      if (h[child]! >= last) break;
      h[at] = h[child]!;
      at = child;
    }
    h[at] = last;
    return top;
  }
}

/** The number of o200k tokens of a text. */
export function countTokens(text: string): number {
  if (!text) return 0;
  const t = (table ??= loadTable());
  let count = 0;
  for (const [piece] of text.matchAll(SPLIT)) {
    // UTF-8 takes at most 3 bytes for each UTF-16 unit.
    const bytes = piece.length * 3 <= KEPT ? scratch : new Uint8Array(piece.length * 3);
    count += mergedCount(t, bytes, encoder.encodeInto(piece, bytes).written);
  }
  return count;
}

/** Prompt tokens as OpenAI counts chat input: each message's content plus a few tokens of framing. */
export function countPromptTokens(messages: PlainMessage[]): number {
  return messages.reduce((sum, m) => sum + 4 + countTokens(m.content), 3);
}
