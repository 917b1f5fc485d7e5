import fs from 'node:fs';
import path from 'node:path';
import { encode } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countPromptTokens, countTokens } from './tokens';

/*
 * Triad's o200k counter against gpt-tokenizer's encoder (the reference it replaced: 200 000 strings in
 * the heap), text by text: the project's own documents and code, many scripts and symbols, and seeded
 * random strings over characters the pre-tokenizer treats differently.
 */
const reference = (text: string) => encode(text, { disallowedSpecial: new Set() }).length;

/** A seeded generator (mulberry32), so that a failure can be run again. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const samples = [
  'Hello, world!',
  "It's what they'd've said: DON'T, we'll, I'M",
  '    indented\n\n\tcode();\r\n  }\n',
  '1234567890 3.14159 -42 1e10 0x1F',
  '日本語のテキストと中文文本，한국어 텍스트',
  'مرحبا بالعالم — שלום עולם — Привет, мир — Γειά σου Κόσμε',
  'emoji 👩‍👩‍👧‍👦 🇫🇷 👍🏽 ❤️ and combining é (e\u0301) ñ',
  '==================================== ------ ****** ////// \\\\\\',
  'https://example.com/path?query=1&x=%20#frag user@example.org',
  '<|endoftext|> and <|im_start|>user text<|im_end|>',
  'a'.repeat(500) + ' ' + 'ab'.repeat(300) + ' ' + '🙂'.repeat(50),
  ' \n \n\n   \t\t x',
  'lone surrogate \ud800 here',
];

describe('countTokens (o200k)', () => {
  it('counts as the reference encoder does, sample by sample', () => {
    for (const text of samples) expect([text, countTokens(text)]).toEqual([text, reference(text)]);
  });

  it('counts the project’s documents and code as the reference encoder does', () => {
    const files = [
      ...fs
        .readdirSync('docs')
        .filter((f) => f.endsWith('.md'))
        .map((f) => path.join('docs', f)),
      'README.md',
      'lib/chat/tokens.ts',
      'lib/pipeline/attempt.ts',
      'app/globals.css',
    ];
    for (const file of files) {
      const text = fs.readFileSync(file, 'utf8');
      expect([file, countTokens(text)]).toEqual([file, reference(text)]);
    }
  });

  it('counts random text over letters, marks, digits, spaces, punctuation and other scripts as the reference does', () => {
    const alphabet = [...'aAzZ09 \t\n\r\'.,;:!?-_/\\"()[]{}<>|=+*&^%$#@~`éÉßøİıǅʰ\u0301\u0308中文ひらカ한ا٣ğ€😀👍🏽\u200d'];
    const next = random(20261126);
    for (let n = 0; n < 2000; n++) {
      const length = 1 + Math.floor(next() * 60);
      let text = '';
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
      expect([text, countTokens(text)]).toEqual([text, reference(text)]);
    }
  });

  it('counts long pieces (thousands of bytes merged pair by pair) as the reference does', () => {
    const next = random(7);
    const pick = (alphabet: string[], length: number) =>
      Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    const long = [
      'a'.repeat(5000),
      '='.repeat(3000),
      '🙂'.repeat(800),
      pick([...'abcdefghijklmnopqrstuvwxyz'], 4000),
      pick([...'etaoinshrdlu'], 4000),
      pick([...'中文日本語한국어'], 1500),
      pick([...'!@#$%^&*()[]{}<>'], 3000),
    ];
    for (const text of long) expect([text.slice(0, 20), countTokens(text)]).toEqual([text.slice(0, 20), reference(text)]);
    // Past the 64 KiB the counter keeps buffers for (the reference takes seconds there): eight a's are a
    // token and an emoji is one, as the reference says of the runs above.
    expect(reference('a'.repeat(5000))).toBe(5000 / 8);
    expect(reference('🙂'.repeat(800))).toBe(800);
    expect(countTokens('a'.repeat(70_000))).toBe(70_000 / 8);
    expect(countTokens('🙂'.repeat(20_000))).toBe(20_000);
    expect(countTokens('a'.repeat(5000))).toBe(5000 / 8); // and the kept buffers still serve a short one after
  });

  it('counts nothing as nothing, and a chat prompt with its framing', () => {
    expect(countTokens('')).toBe(0);
    expect(countPromptTokens([{ role: 'user', content: 'Hello, world!' }])).toBe(3 + 4 + reference('Hello, world!'));
  });
});
