import { describe, expect, it } from 'vitest';
import { restamped, withField } from './wire-text';

describe('withField', () => {
  it('adds a field at the end of an object, the rest unchanged', () => {
    const text = '{"model":"m","messages":[{"role":"user","content":"}"}],"stream":true}';
    const out = withField(text, 'stream_options', { include_usage: true })!;
    expect(out.startsWith(text.slice(0, -1))).toBe(true);
    expect(JSON.parse(out)).toEqual({ ...JSON.parse(text), stream_options: { include_usage: true } });
  });

  it('keeps trailing white space out and handles an empty object', () => {
    expect(JSON.parse(withField('{"a":1}\n  ', 'b', 2)!)).toEqual({ a: 1, b: 2 });
    expect(withField('{ }', 'b', 2)).toBe('{"b":2}');
  });

  it('refuses a text that is not an object', () => {
    expect(withField('[1]', 'b', 2)).toBeNull();
    expect(withField('{"a":1} x', 'b', 2)).toBeNull();
  });
});

describe('restamped', () => {
  const chunk = {
    id: 'chatcmpl-up',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'server-model',
    choices: [{ index: 0, delta: { content: 'the "model" said' }, finish_reason: null }],
  };

  it('replaces the id and the model, every other byte as written', () => {
    const text = JSON.stringify(chunk);
    const out = restamped(text, chunk, 'chatcmpl-triad', 'client-model')!;
    expect(JSON.parse(out)).toEqual({ ...chunk, id: 'chatcmpl-triad', model: 'client-model' });
    expect(out.replace('chatcmpl-triad', 'chatcmpl-up').replace('"client-model"', '"server-model"')).toBe(text);
  });

  it('writes values that need escaping as JSON', () => {
    const out = restamped(JSON.stringify(chunk), chunk, 'id"1', 'a\\b/"c"')!;
    expect(JSON.parse(out)).toMatchObject({ id: 'id"1', model: 'a\\b/"c"' });
  });

  it('leaves texts it cannot edit exactly to be encoded anew', () => {
    // spaces after the colon, another key first, no id, the model written with an escape
    expect(restamped(JSON.stringify(chunk, null, 1), chunk, 'x', 'y')).toBeNull();
    const { id, ...rest } = chunk;
    expect(restamped(JSON.stringify({ ...rest, id }), chunk, 'x', 'y')).toBeNull();
    expect(restamped(JSON.stringify(rest), rest, 'x', 'y')).toBeNull();
    expect(restamped(JSON.stringify(chunk).replace('server-model', 'server\\u002dmodel'), chunk, 'x', 'y')).toBeNull();
  });

  it('does not edit a text where "model" also appears as a nested key or a string', () => {
    const nested = { ...chunk, choices: [{ index: 0, delta: { content: '' }, extra: { model: 'server-model' } }] };
    expect(restamped(JSON.stringify(nested), nested, 'x', 'y')).toBeNull();
    const asValue = { ...chunk, choices: [{ index: 0, delta: { content: 'model' } }] };
    expect(restamped(JSON.stringify(asValue), asValue, 'x', 'y')).toBeNull();
  });
});
