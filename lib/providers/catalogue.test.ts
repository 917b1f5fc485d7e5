import { describe, expect, it } from 'vitest';
import { exposedModels } from './catalogue';

describe('exposedModels', () => {
  it('serves the server’s models under their own names by default', () => {
    expect([...exposedModels(['a', 'b'], null, {})]).toEqual([
      ['a', 'a'],
      ['b', 'b'],
    ]);
  });

  it('serves a renamed model under its exposed name only, and only if the server has it', () => {
    const m = exposedModels(['llama3.2:1b-instruct-q4', 'b'], null, { 'llama3.2:1b': 'llama3.2:1b-instruct-q4', gone: 'missing' });
    expect(Object.fromEntries(m)).toEqual({ b: 'b', 'llama3.2:1b': 'llama3.2:1b-instruct-q4' });
  });

  it('keeps only allowed (exposed) names', () => {
    const m = exposedModels(['x1', 'b', 'c'], ['x', 'c'], { x: 'x1' });
    expect(Object.fromEntries(m)).toEqual({ c: 'c', x: 'x1' });
  });
});
