// `npm run bench:tokens`: Triad's o200k token counter (lib/chat/tokens.ts) against gpt-tokenizer's, the
// library it replaced: a short prompt, a document (docs/design.md), and long single pieces (a run of one
// letter is one piece of the pre-tokenizer: the merge's worst case). Prints the time of each and the two
// counts of the first (which must agree); asserts nothing. gpt-tokenizer's merge is quadratic: its long rows are
// capped at 40 000 characters (0.7 s each on this project's VM).
import fs from 'node:fs';
import { encode } from 'gpt-tokenizer';
import { countTokens } from '../../lib/chat/tokens';

const theirs = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;

/**
 * Mean ms of a call over `runs`, after a few to warm up; each call on a text of its own (`text(i)`), so
 * that no cache of a tokenizer answers for the text it saw before. The count is of `text(0)`.
 */
function time(f: (text: string) => number, text: (i: number) => string, runs: number): { ms: number; count: number } {
  const count = f(text(0));
  for (let i = 1; i < 3; i++) f(text(-i));
  const texts = Array.from({ length: runs }, (_, i) => text(i + 1));
  const started = performance.now();
  for (const t of texts) f(t);
  return { ms: (performance.now() - started) / runs, count };
}

const design = fs.readFileSync('docs/design.md', 'utf8');
// Each text varies with i (a word's length, a number in the prompt), as different requests' texts do.
const rows: [string, (i: number) => string, number, boolean][] = [
  ['short prompt (52 characters)', (i) => `Say hello to user ${i} in one short sentence, please.`, 20_000, true],
  ['docs/design.md', (i) => `${i} ${design}`, 10, true],
  ['one word of 40 000 letters', (i) => 'a'.repeat(40_000 + i), 3, true],
  ['40 000 dots', (i) => '.'.repeat(40_000 + i), 3, true],
  ['10 000 emoji', (i) => '🙂'.repeat(10_000 + i), 3, true],
  ['one word of 1 000 000 letters', (i) => 'a'.repeat(1_000_000 + i), 3, false],
];

console.log(`\nbench:tokens — node ${process.version}\n`);
console.log('| text | Triad ms | gpt-tokenizer ms | tokens (Triad / gpt-tokenizer) |');
console.log('|---|---|---|---|');
for (const [name, text, runs, compare] of rows) {
  const ours = time(countTokens, text, runs);
  const ref = compare ? time(theirs, text, runs) : null;
  const fmt = (ms: number) => (ms < 0.1 ? `${(ms * 1000).toFixed(2)} µs` : ms.toFixed(1));
  console.log(`| ${name} | ${fmt(ours.ms)} | ${ref ? fmt(ref.ms) : '— (minutes)'} | ${ours.count} / ${ref ? ref.count : '—'} |`);
}
