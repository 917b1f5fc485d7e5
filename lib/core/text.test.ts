import { describe, expect, it } from 'vitest';
import { mayBeUnstorable, mendText, storableText } from './text';

describe('text PostgreSQL can store', () => {
  it('is text without a NUL or half a surrogate pair; whole pairs (an emoji) are fine', () => {
    expect(['', 'plain', 'naïve 😀', '\ud83d\ude00'].every(storableText)).toBe(true);
    expect(['a\u0000', '\ud800', 'x\udc00y', '\ude00\ud83d'].some(storableText)).toBe(false);
  });

  it('is mended with U+FFFD in place of each, and is the same string when nothing needs it', () => {
    const fine = 'naïve 😀';
    expect(mendText(fine)).toBe(fine);
    expect(mendText('a\u0000b\ud800c\udc00😀')).toBe('a\ufffdb\ufffdc\ufffd😀');
    expect(storableText(mendText('\u0000\ud800'))).toBe(true);
  });

  it('is found in the JSON text of every string that is not (and of a pair written as escapes, which a walk then passes)', () => {
    for (const s of ['a\u0000', '\ud800', '\uDC00x']) expect(mayBeUnstorable(JSON.stringify(s)), s).toBe(true);
    for (const s of ['plain', '😀', 'tab\t', '\u0001']) expect(mayBeUnstorable(JSON.stringify(s)), s).toBe(false);
    expect(mayBeUnstorable('"\\ud83d\\ude00"')).toBe(true); // a pair written as escapes: walked, and found fine
  });
});
