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

/** The encoding's tokens: bytes by rank, and a hash of byte strings to ranks (open addressing). */
type Table = { bytes: Uint8Array; starts: Uint32Array; lengths: Uint16Array; slots: Int32Array; mask: number };

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
  const lengths = new Uint16Array(count);
  for (let i = 0; i < count; i++) lengths[i] = data.readUInt16LE(10 + i * 2);
  const bytes = new Uint8Array(data.subarray(10 + count * 2)); // a copy: the file's buffer is not kept
  const starts = new Uint32Array(count);
  let size = 1;
  while (size < count * 2) size <<= 1;
  const slots = new Int32Array(size).fill(-1);
  const mask = size - 1;
  for (let rank = 0, at = 0; rank < count; at += lengths[rank]!, rank++) {
    starts[rank] = at;
    if (!lengths[rank]) continue;
    let slot = hash(bytes, at, at + lengths[rank]!) & mask;
    while (slots[slot] !== -1) slot = (slot + 1) & mask;
    slots[slot] = rank;
  }
  return { bytes, starts, lengths, slots, mask };
}

/** FNV-1a over bytes[from, to). */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The rank of the token whose bytes are piece[from, to), or NONE. */
function rankOf(t: Table, piece: Uint8Array, from: number, to: number): number {
  const length = to - from;
  for (let slot = hash(piece, from, to) & t.mask; ; slot = (slot + 1) & t.mask) {
    const rank = t.slots[slot]!;
    if (rank === -1) return NONE;
    if (t.lengths[rank] !== length) continue;
    const start = t.starts[rank]!;
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
let scratch = new Uint8Array(1024);
let starts = new Int32Array(1025);
let ranks = new Int32Array(1025);

/** How many tokens a piece of `n` bytes (in `scratch`) becomes: tiktoken's byte-pair merge. */
function mergedCount(t: Table, n: number): number {
  if (n === 1 || rankOf(t, scratch, 0, n) !== NONE) return 1;
  if (starts.length < n + 1) {
    starts = new Int32Array(n + 1);
    ranks = new Int32Array(n + 1);
  }
  // Parts [starts[i], starts[i+1]); ranks[i]: the rank of parts i and i+1 merged.
  let parts = n + 1; // boundaries
  for (let i = 0; i < n; i++) {
    starts[i] = i;
    ranks[i] = i < n - 1 ? rankOf(t, scratch, i, i + 2) : NONE;
  }
  starts[n] = n;
  ranks[n] = NONE;
  const pairRank = (i: number) => (i + 3 < parts ? rankOf(t, scratch, starts[i]!, starts[i + 3]!) : NONE);
  for (;;) {
    let min = NONE;
    let at = -1;
    for (let i = 0; i < parts - 1; i++) {
      if (ranks[i]! < min) {
        min = ranks[i]!;
        at = i;
      }
    }
    if (at < 0) break;
    if (at > 0) ranks[at - 1] = pairRank(at - 1);
    ranks[at] = pairRank(at);
    starts.copyWithin(at + 1, at + 2, parts);
    ranks.copyWithin(at + 1, at + 2, parts);
    parts--;
  }
  return parts - 1;
}

/** The number of o200k tokens of a text. */
export function countTokens(text: string): number {
  if (!text) return 0;
  const t = (table ??= loadTable());
  let count = 0;
  for (const [piece] of text.matchAll(SPLIT)) {
    if (scratch.length < piece.length * 3) scratch = new Uint8Array(piece.length * 3);
    count += mergedCount(t, encoder.encodeInto(piece, scratch).written);
  }
  return count;
}

/** Prompt tokens as OpenAI counts chat input: each message's content plus a few tokens of framing. */
export function countPromptTokens(messages: PlainMessage[]): number {
  return messages.reduce((sum, m) => sum + 4 + countTokens(m.content), 3);
}
