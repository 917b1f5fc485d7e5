// The token table of the o200k encoding (`node scripts/token-table.mjs OUT.bin`, run by the build):
// every token's bytes, in rank order, in one small binary file that lib/chat/tokens.ts reads at its first
// count. Taken from gpt-tokenizer's ranks (a 2.4 MB JavaScript module of 200 000 strings: loaded as such
// it held 16 MB of the server's heap and some 30 MB more of its resident memory).
// Layout: "o200k\n", the token count (uint32 LE), each token's byte length (uint16 LE, 0 for an unused
// rank), then the tokens' bytes one after another.
import fs from 'node:fs';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/token-table.mjs OUT.bin');
  process.exit(2);
}
const encoder = new TextEncoder();
const tokens = Array.from(ranks, (t) =>
  t === undefined ? new Uint8Array(0) : typeof t === 'string' ? encoder.encode(t) : Uint8Array.from(t),
);
const head = Buffer.alloc(6 + 4);
head.write('o200k\n', 0, 'latin1');
head.writeUInt32LE(tokens.length, 6);
const lengths = Buffer.alloc(tokens.length * 2);
tokens.forEach((t, i) => lengths.writeUInt16LE(t.length, i * 2));
fs.writeFileSync(`${out}.partial`, Buffer.concat([head, lengths, ...tokens]));
fs.renameSync(`${out}.partial`, out);
