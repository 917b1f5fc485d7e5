/*
 * Text PostgreSQL can store. Its text type refuses a NUL character, and jsonb (every JSON parameter a
 * statement carries) also half a surrogate pair — which JSON may spell (`"\ud800"`) and JavaScript
 * strings hold. Such text from outside is refused where it comes in (request bodies, tunnel frames);
 * what Triad records of what happened (a model server's error, a model's output) is mended instead.
 * Pure: the node agent's bundle uses it too.
 */

/** Whether PostgreSQL can store `s` as it is: no NUL, no half surrogate pair. */
export const storableText = (s: string): boolean => !s.includes('\u0000') && s.isWellFormed();

/** `s` with U+FFFD in place of each NUL and each half surrogate pair; `s` itself when it has neither. */
export const mendText = (s: string): string => (storableText(s) ? s : s.toWellFormed().replaceAll('\u0000', '\ufffd'));

const UNSTORABLE_ESCAPE = /\\u(0000|d[89a-f])/i;
/**
 * Whether JSON text may spell text PostgreSQL cannot store: only an escape can (`\u0000`, `\ud800`–
 * `\udfff`), so JSON without one needs no walk. (Most have no escape at all: that is looked for first,
 * some forty times faster than the pattern.)
 */
export const mayBeUnstorable = (json: string): boolean => json.includes('\\u') && UNSTORABLE_ESCAPE.test(json);
