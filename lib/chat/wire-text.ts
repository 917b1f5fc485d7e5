/*
 * Passing the dialect on without encoding it again (design §13, docs/benchmarks.md): the client's
 * request and the model server's replies travel as the JSON text they came as, with only the values
 * Triad sets written into it. Each function edits a text only in the plain form servers and clients
 * write (no spaces around the key, the value as JSON.stringify writes it) and answers null for any
 * other, so that the caller encodes the object anew: an edit is exact or not made at all.
 */

/** A JSON object's text with one more top-level field (one the object does not have), added at its end. */
export function withField(text: string, key: string, value: unknown): string | null {
  const end = text.lastIndexOf('}');
  if (end < 0 || text.slice(end + 1).trim() !== '') return null;
  const inner = text.slice(0, end).trimEnd();
  const sep = inner.endsWith('{') ? '' : ',';
  return `${inner}${sep}${JSON.stringify(key)}:${JSON.stringify(value)}}`;
}

/**
 * A reply object's text with its `id` and `model` replaced by `id` and `model`, every other byte as the
 * server wrote it. `value` is the object parsed from `text`. Editable when the text begins with its id
 * (`{"id":"…"`, as OpenAI-compatible servers write it) and holds the key `"model"` exactly once, followed
 * by its value: then that is the top-level key (a string "model" anywhere else would be a second one).
 */
export function restamped(text: string, value: { id?: unknown; model?: unknown }, id: string, model: string): string | null {
  if (typeof value.id !== 'string' || typeof value.model !== 'string') return null;
  const idHead = `{"id":${JSON.stringify(value.id)}`;
  if (!text.startsWith(idHead)) return null;
  const key = '"model"';
  const at = text.indexOf(key, idHead.length);
  if (at < 0 || text.indexOf(key, at + key.length) >= 0 || text.lastIndexOf(key, idHead.length) >= 0) return null;
  const oldValue = `:${JSON.stringify(value.model)}`;
  const valueAt = at + key.length;
  if (!text.startsWith(oldValue, valueAt)) return null;
  return `{"id":${JSON.stringify(id)}${text.slice(idHead.length, valueAt)}:${JSON.stringify(model)}${text.slice(valueAt + oldValue.length)}`;
}

/**
 * A reply object's text with `"cost":cost` first in its top-level `usage` object (design §17). `value`
 * is the object parsed from `text`; its usage must have no cost yet. Editable when the key `"usage"`
 * occurs exactly once in the text (then it is the top-level one: inside a string its quotes would be
 * escaped) and its value is written as an object.
 */
export function withUsageCost(text: string, value: { usage?: unknown }, cost: number): string | null {
  const usage = value.usage;
  if (!usage || typeof usage !== 'object' || 'cost' in usage) return null;
  const key = '"usage":';
  const at = text.indexOf(key);
  if (at < 0 || text.indexOf(key, at + key.length) >= 0 || text[at - 1] === '\\') return null;
  const open = at + key.length;
  if (text[open] !== '{') return null;
  const sep = text[open + 1] === '}' ? '' : ',';
  return `${text.slice(0, open + 1)}"cost":${JSON.stringify(cost)}${sep}${text.slice(open + 1)}`;
}
